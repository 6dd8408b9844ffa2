/*
 * The relay thread's own declarations, shared by its files (relay.c is the JS API and says what the
 * relay is for): the objects it moves bytes for, their table, and what each part offers the others.
 * Every object is in one table under one lock; the thread and Node's calls take the lock per object.
 */
#ifndef LUCKY_RELAY_H
#define LUCKY_RELAY_H
#include <node_api.h>

#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

/* TCP: bytes per splice call and the pipe size asked for (the kernel may give less). */
#define CHUNK (1024 * 1024)
/* TCP: bytes one direction moves before other objects get their turn. */
#define TURN_BYTES (4 * 1024 * 1024)

enum { KIND_TCP = 1, KIND_UDP_LISTENER, KIND_UDP_SESSION, KIND_FILE_SEND, KIND_FILE_RECV, KIND_PASS };
enum { REASON_DONE = 0, REASON_ERROR = 1, REASON_IDLE = 2, REASON_LIMIT = 3 };
/* A file transfer without a length (send) or a limit (receive). */
#define UNLIMITED UINT64_MAX

typedef struct {
  int kind;
  uint32_t slot, gen;
  int again; /* ran out of its turn: run again without waiting for an event */
} Head;

typedef struct {
  int src, dst;
  int pipe_r, pipe_w; /* -1 when no pipe is held */
  size_t in_pipe;
  int eof;  /* src reached end of stream */
  int done; /* FIN passed on */
  uint64_t bytes;
} Dir;

typedef struct {
  Head h;
  int fd[2];
  Dir dir[2];
  int out_armed[2]; /* EPOLLOUT asked for on fd[i]: only while a write to it would block */
  int64_t idle_ms;
  int64_t last;
} Tcp;

typedef struct {
  Head h;
  int fd;
  uint32_t max_packet;
} UdpListener;

typedef struct UdpSession {
  Head h;
  int fd;
  uint32_t listener_slot, listener_gen;
  struct sockaddr_storage client;
  socklen_t client_len;
  uint64_t bytes_in, bytes_out;
  int64_t last;
  int no_gso; /* the kernel or the target's device refused UDP GSO once: plain sends from now on */
  struct UdpSession *next; /* hash chain */
} UdpSession;

/*
 * Regular files cannot be in an epoll set (EPERM) and are always "ready": only the socket is
 * watched, and the file side is read or written whenever the socket side can move. A read from a
 * cold disk (sendfile) or a write to a slow one (splice into the file) therefore blocks this thread
 * for as long as the disk takes; other objects wait that long, and so do Node's counters()/remove()
 * calls for this object (they take the lock). The per-turn budget bounds it to one turn's bytes.
 */
typedef struct {
  Head h;
  int sock, file;
  off_t offset;  /* the next byte of the file */
  uint64_t left; /* bytes still to send; UNLIMITED: until the end of the file */
  uint64_t bytes;
  int64_t idle_ms;
  int64_t last;
  int keep_open; /* the socket carries more after this (HTTP keep-alive): no FIN; `sock` is our own dup */
} FileSend;

typedef struct {
  Head h;
  int sock, file;
  Dir d;              /* src = the socket; the pipe between socket and file; d.bytes = bytes written */
  off_t offset;       /* where the next byte goes in the file */
  uint64_t limit;     /* bytes the file may get; UNLIMITED: no limit */
  uint64_t received;  /* bytes taken from the socket (written, or waiting in the pipe) */
  int64_t idle_ms;
  int64_t last;
} FileRecv;

/* A pass's buffer, taken at its first read and kept to its end (a large one would be an mmap and
 * munmap each time the source runs dry). */
#define PASS_BUFFER (256 * 1024)

/* A body of `left` more bytes from src to dst (both the relay's own duplicates); tag side 0 is the
 * source, side 1 the destination. */
typedef struct {
  Head h;
  int src, dst;
  char *buf;           /* NULL until the first read */
  size_t held, sent;   /* bytes in buf, and those of them written */
  uint64_t left;       /* bytes still to read from src */
  uint64_t bytes;      /* bytes written to dst */
  int eof;
  int out_armed;
  int64_t idle_ms;
  int64_t last;
} Pass;

typedef struct {
  int kind; /* 0: an end; 1: a datagram for Node */
  uint32_t slot, gen;
  uint64_t a, b;
  int reason, err;
  char address[INET6_ADDRSTRLEN];
  int port;
  size_t len;
  unsigned char data[];
} Event;

/* relay_table.c: the objects by slot (an id is slot and generation), and the UDP sessions by client. */
extern pthread_mutex_t relay_lock;
extern Head **relay_slots;
extern uint32_t relay_nslots;
/* Objects that ran out of their turn and run again without waiting for an event. */
extern uint32_t relay_n_again;
int64_t now_ms(void);
double id_of(Head *h);
uint64_t tag(Head *h, int side);
Head *lookup(uint32_t slot, uint32_t gen);
void set_again(Head *h);
void clear_again(Head *h);
void post(napi_threadsafe_function fn, Event *e);
int grow(void);
void take_slot(Head *h, int kind);
void give_slot(Head *h);
void drop(Head *h);
void counters(Head *h, uint64_t *a, uint64_t *b, int64_t *idle);
void end_object(Head *h, int reason, int err);
UdpSession *find_session(UdpListener *l, const struct sockaddr_storage *a);
void link_session(UdpSession *s);

/* relay_pipes.c: kernel pipes for splice, kept for reuse while empty. */
int take_pipe(Dir *d);
void give_pipe(Dir *d);

/* relay_tcp.c, relay_udp.c, relay_filemove.c, relay_pass.c: one turn of an object's work. */
int watch_tcp(Tcp *c, int side, int op, int out);
int watch_pass(Pass *p, int side, int op, int out);
void run_pass(Pass *p, int64_t now);
void run_tcp(Tcp *c, int64_t now);
void run_listener(UdpListener *l, int64_t now);
void run_session(UdpSession *s, int64_t now);
void run_send(FileSend *f, int64_t now);
void run_recv(FileRecv *f, int64_t now);

/* relay_thread.c: the thread, its epoll set and the callbacks into Node. */
extern int relay_started;
extern int relay_ep;
extern napi_threadsafe_function relay_on_end, relay_on_packet;
void wake(void);
napi_value js_start(napi_env env, napi_callback_info info);

#endif
