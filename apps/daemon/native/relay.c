/*
 * Native relay for the port forwarding engine (Linux): the data path only. Node keeps deciding
 * (limits, filters, targets, logs) and keeps owning every descriptor; the relay never opens or
 * closes a socket, it moves bytes between sockets Node hands over and reports back. Beside it, two
 * socket openers for what Node cannot set up itself (SO_REUSEPORT), which hand the fd to Node.
 *
 * - TCP pairs: splice(2) moves bytes from one socket to the other through a kernel pipe, so they
 *   never enter user space; each side's FIN is passed on as a half-close.
 * - UDP: a listener's datagrams are read in batches (recvmmsg); those of a client with a session
 *   go out on the session's connected socket, replies come back through the listener (sendmmsg).
 *   Datagrams of clients without a session are passed to Node, which decides and opens one.
 * - Files (the FTP data path): a file send moves a file to a socket with sendfile(2), a file receive
 *   moves a socket into a file at an offset with splice(2) through a pipe. Node opens the file (after
 *   its path checks) and the socket, and closes both once the end is reported or remove() returned.
 *   An HTTP body (keepOpen) goes out on the relay's own duplicate of a socket Node goes on using.
 *
 * One background thread waits on an epoll set (edge-triggered) and works until the kernel would
 * block; a busy object yields after a budget so that others get their turn.
 *
 * JS API (N-API, so one build serves Node 20, 22 and 24):
 *   start(onEnd, onPacket)                      once per process
 *     onEnd(id, a, b, reason, errno)            a TCP pair or UDP session ended by itself
 *     onPacket(listenerId, buffer, address, port)  a datagram from a client without a session
 *   tcpAdd(fdA, fdB, idleMs) -> id              A = client side
 *   udpListen(fd, maxPacket) -> id, udpSetMax(id, maxPacket), udpUnlisten(id)
 *   udpSession(listenerId, fd, address, port) -> id
 *   fileSend(sockFd, fileFd, offset, length, idleMs[, keepOpen]) -> id   a file to a socket (sendfile); length -1: to
 *                                               its end; keepOpen: no half-close after it (an HTTP body on a
 *                                               keep-alive connection, whose next answer follows), and sent on a
 *                                               duplicate of sockFd the relay closes at the end or remove():
 *                                               Node may close its own descriptor meanwhile
 *   fileReceive(sockFd, fileFd, offset, limit, idleMs) -> id   a socket into a file until EOF; limit -1: none
 *   counters(id) -> [a, b, idleMs] | null        a/b: client→target / target→client bytes
 *                                               (a file receive counts in a, a file send in b)
 *   remove(id) -> [a, b] | null                 take an object back at once (no onEnd follows)
 * reason: 0 both sides finished (a file: sent to its end / EOF received and written), 1 error (errno
 * set), 2 idle timeout, 3 a file receive got more than its limit (the bytes past it are not written).
 *   listenTcp(ip, port, ipv6Only, backlog) -> fd  a SO_REUSEPORT listener (web serving threads, STUN)
 *   connectTcp(localIp, localPort, ip, port) -> fd  an outbound connect from a port a listener holds
 *   connectState(fd) -> 0 connected, 1 connecting, -errno failed
 *   acceptTcp(fd, max) -> [fd, ...]             what waits on a listening socket, accepted now
 * and the file reads of files.c (readBeneath), which share this addon.
 */
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include <node_api.h>

#include "files.h"
#include "serving.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* TCP: bytes per splice call and the pipe size asked for (the kernel may give less). */
#define CHUNK (1024 * 1024)
/* TCP: bytes one direction moves before other objects get their turn. */
#define TURN_BYTES (4 * 1024 * 1024)
/* Idle pipes kept for reuse; a pipe is held only while bytes wait in it. */
#define PIPES_KEPT 32
/* UDP: datagrams per recvmmsg/sendmmsg call, and calls per turn. */
#define BATCH 32
#define TURN_BATCHES 8
#define DGRAM_MAX 65536
/*
 * UDP GSO: datagrams of one size, at most this big (they fit any link's MTU), up to this many and
 * this many bytes, leave as one send that the kernel cuts up (Linux 4.18+; UDP_MAX_SEGMENTS is 64).
 */
#define GSO_DGRAM_MAX 1400
#define GSO_SEGMENTS 64
#define GSO_BYTES 61440
/* Datagrams for Node waiting to be taken; more are dropped, as a full socket buffer would. */
#define PACKETS_QUEUED 4096
#define EVENTS 256
#define BUCKETS 16384

enum { KIND_TCP = 1, KIND_UDP_LISTENER, KIND_UDP_SESSION, KIND_FILE_SEND, KIND_FILE_RECV };
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

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int started = 0;
static int ep = -1;
static int wake_fd = -1;
static napi_threadsafe_function on_end, on_packet;

static Head **slots = NULL;
static uint32_t *gens = NULL;
static uint32_t nslots = 0;
static uint32_t *free_slots = NULL;
static uint32_t nfree = 0;
static uint32_t n_again = 0;
static UdpSession *buckets[BUCKETS];

static int pipes[PIPES_KEPT][2];
static int npipes = 0;

/* Batch buffers, used by the relay thread only. */
static unsigned char bufs[BATCH][DGRAM_MAX];
static struct iovec iovs[BATCH];
static struct sockaddr_storage addrs[BATCH];
static struct mmsghdr msgs[BATCH], outs[BATCH];
static unsigned char gso_buf[GSO_BYTES];

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static double id_of(Head *h) { return (double)h->slot + (double)h->gen * 4294967296.0; }
static uint64_t tag(Head *h, int side) { return ((uint64_t)h->gen << 32) | ((uint64_t)h->slot << 1) | (uint64_t)side; }

static Head *lookup(uint32_t slot, uint32_t gen) {
  if (slot >= nslots) return NULL;
  Head *h = slots[slot];
  return h && h->gen == gen ? h : NULL;
}

static void set_again(Head *h) {
  if (!h->again) n_again++;
  h->again = 1;
}

static void clear_again(Head *h) {
  if (h->again) n_again--;
  h->again = 0;
}

static void post(napi_threadsafe_function fn, Event *e) {
  if (napi_call_threadsafe_function(fn, e, napi_tsfn_nonblocking) != napi_ok) free(e);
}

/* ------------------------------------------------------------------ UDP session table */

static uint32_t hash_addr(uint32_t listener_slot, const struct sockaddr_storage *a) {
  uint32_t h = 2166136261u ^ listener_slot;
  const unsigned char *p;
  size_t n;
  if (a->ss_family == AF_INET) {
    const struct sockaddr_in *s = (const void *)a;
    p = (const void *)&s->sin_addr;
    n = 4;
    h = (h ^ s->sin_port) * 16777619u;
  } else {
    const struct sockaddr_in6 *s = (const void *)a;
    p = (const void *)&s->sin6_addr;
    n = 16;
    h = (h ^ s->sin6_port) * 16777619u;
  }
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
  return h % BUCKETS;
}

static int same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b) {
  if (a->ss_family != b->ss_family) return 0;
  if (a->ss_family == AF_INET) {
    const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;
    return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
  }
  const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;
  return x->sin6_port == y->sin6_port && memcmp(&x->sin6_addr, &y->sin6_addr, 16) == 0;
}

static UdpSession *find_session(UdpListener *l, const struct sockaddr_storage *a) {
  for (UdpSession *s = buckets[hash_addr(l->h.slot, a)]; s; s = s->next)
    if (s->listener_slot == l->h.slot && s->listener_gen == l->h.gen && same_addr(&s->client, a)) return s;
  return NULL;
}

static void unlink_session(UdpSession *s) {
  UdpSession **p = &buckets[hash_addr(s->listener_slot, &s->client)];
  while (*p && *p != s) p = &(*p)->next;
  if (*p) *p = s->next;
}

/* ------------------------------------------------------------------ objects */

static void take_slot(Head *h, int kind) {
  h->kind = kind;
  h->slot = free_slots[--nfree];
  h->gen = ++gens[h->slot] & 0x1fffff; /* ids stay below 2^53 as JS numbers */
  if (h->gen == 0) h->gen = gens[h->slot] = 1;
  slots[h->slot] = h;
}

static void give_pipe(Dir *d);

/* The slot goes back to the free list and the object is freed (its descriptors stay Node's). */
static void give_slot(Head *h) {
  clear_again(h);
  slots[h->slot] = NULL;
  free_slots[nfree++] = h->slot;
  free(h);
}

/* Out of the epoll set and the table, and freed; the descriptors stay open (Node owns them). */
static void drop(Head *h) {
  if (h->kind == KIND_TCP) {
    Tcp *c = (Tcp *)h;
    epoll_ctl(ep, EPOLL_CTL_DEL, c->fd[0], NULL);
    epoll_ctl(ep, EPOLL_CTL_DEL, c->fd[1], NULL);
    give_pipe(&c->dir[0]);
    give_pipe(&c->dir[1]);
  } else if (h->kind == KIND_UDP_LISTENER) {
    epoll_ctl(ep, EPOLL_CTL_DEL, ((UdpListener *)h)->fd, NULL);
  } else if (h->kind == KIND_FILE_SEND) {
    FileSend *f = (FileSend *)h;
    epoll_ctl(ep, EPOLL_CTL_DEL, f->sock, NULL);
    if (f->keep_open) close(f->sock);
  } else if (h->kind == KIND_FILE_RECV) {
    FileRecv *f = (FileRecv *)h;
    epoll_ctl(ep, EPOLL_CTL_DEL, f->sock, NULL);
    give_pipe(&f->d); /* bytes still in it (limit reached, removed) are discarded with it */
  } else {
    UdpSession *s = (UdpSession *)h;
    epoll_ctl(ep, EPOLL_CTL_DEL, s->fd, NULL);
    unlink_session(s);
  }
  give_slot(h);
}

static void counters(Head *h, uint64_t *a, uint64_t *b, int64_t *idle) {
  int64_t now = now_ms();
  if (h->kind == KIND_TCP) {
    Tcp *c = (Tcp *)h;
    *a = c->dir[0].bytes;
    *b = c->dir[1].bytes;
    *idle = now - c->last;
  } else if (h->kind == KIND_UDP_SESSION) {
    UdpSession *s = (UdpSession *)h;
    *a = s->bytes_in;
    *b = s->bytes_out;
    *idle = now - s->last;
  } else if (h->kind == KIND_FILE_SEND) {
    FileSend *f = (FileSend *)h;
    *a = 0;
    *b = f->bytes;
    *idle = now - f->last;
  } else if (h->kind == KIND_FILE_RECV) {
    FileRecv *f = (FileRecv *)h;
    *a = f->d.bytes;
    *b = 0;
    *idle = now - f->last;
  } else {
    *a = *b = 0;
    *idle = 0;
  }
}

/* Reports the end to Node, then drops the object. */
static void end(Head *h, int reason, int err) {
  Event *e = calloc(1, sizeof(Event));
  if (e) {
    int64_t idle;
    e->slot = h->slot;
    e->gen = h->gen;
    e->reason = reason;
    e->err = err;
    counters(h, &e->a, &e->b, &idle);
  }
  drop(h);
  if (e) post(on_end, e);
}

/* ------------------------------------------------------------------ TCP */

static int take_pipe(Dir *d) {
  if (npipes > 0) {
    npipes--;
    d->pipe_r = pipes[npipes][0];
    d->pipe_w = pipes[npipes][1];
    return 0;
  }
  int p[2];
  if (pipe2(p, O_NONBLOCK | O_CLOEXEC) < 0) return -1;
  fcntl(p[1], F_SETPIPE_SZ, CHUNK); /* best effort: a smaller pipe only means more calls */
  d->pipe_r = p[0];
  d->pipe_w = p[1];
  return 0;
}

/* An empty pipe goes back to the pool; one with bytes left in it cannot be reused. */
static void give_pipe(Dir *d) {
  if (d->pipe_r < 0) return;
  if (d->in_pipe == 0 && npipes < PIPES_KEPT) {
    pipes[npipes][0] = d->pipe_r;
    pipes[npipes][1] = d->pipe_w;
    npipes++;
  } else {
    close(d->pipe_r);
    close(d->pipe_w);
  }
  d->pipe_r = d->pipe_w = -1;
  d->in_pipe = 0;
}

/* Moves bytes one way until the kernel would block. Returns 0, or an errno. */
static int pump(Tcp *c, Dir *d, int64_t now) {
  size_t budget = TURN_BYTES;
  while (!d->done) {
    if (d->in_pipe > 0) {
      ssize_t w = splice(d->pipe_r, NULL, d->dst, NULL, d->in_pipe, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
      if (w > 0) {
        d->in_pipe -= (size_t)w;
        d->bytes += (uint64_t)w;
        c->last = now;
        continue;
      }
      if (w < 0 && errno == EINTR) continue;
      if (w < 0 && errno == EAGAIN) return 0; /* EPOLLOUT on dst brings us back */
      return w < 0 ? errno : EPIPE;
    }
    if (d->eof) {
      give_pipe(d);
      shutdown(d->dst, SHUT_WR);
      d->done = 1;
      break;
    }
    if (budget == 0) {
      set_again(&c->h);
      return 0;
    }
    if (d->pipe_r < 0 && take_pipe(d) < 0) return errno;
    ssize_t r = splice(d->src, NULL, d->pipe_w, NULL, CHUNK, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
    if (r > 0) {
      d->in_pipe = (size_t)r;
      budget = (size_t)r >= budget ? 0 : budget - (size_t)r;
      c->last = now;
      continue;
    }
    if (r == 0) {
      d->eof = 1;
      continue;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN) {
      give_pipe(d); /* idle connections hold no pipe */
      return 0;
    }
    return errno;
  }
  return 0;
}

/* Writability matters only while bytes wait for it; asking for it always would wake the thread on
 * every ACK of a busy stream. */
static int watch_tcp(Tcp *c, int side, int op, int out) {
  struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | EPOLLET | (out ? EPOLLOUT : 0), .data.u64 = tag(&c->h, side)};
  return epoll_ctl(ep, op, c->fd[side], &ev);
}

static void run_tcp(Tcp *c, int64_t now) {
  for (int i = 0; i < 2; i++) {
    int err = pump(c, &c->dir[i], now);
    if (err) { end(&c->h, REASON_ERROR, err); return; }
  }
  if (c->dir[0].done && c->dir[1].done) { end(&c->h, REASON_DONE, 0); return; }
  /* dir[0] writes to fd[1], dir[1] to fd[0]. */
  for (int side = 0; side < 2; side++) {
    Dir *w = &c->dir[1 - side];
    int want = w->in_pipe > 0 && !w->done;
    if (want != c->out_armed[side]) {
      c->out_armed[side] = want;
      if (watch_tcp(c, side, EPOLL_CTL_MOD, want) < 0) { end(&c->h, REASON_ERROR, errno); return; }
    }
  }
}

/* ------------------------------------------------------------------ UDP */

static int recv_batch(int fd) {
  for (int i = 0; i < BATCH; i++) {
    iovs[i] = (struct iovec){.iov_base = bufs[i], .iov_len = DGRAM_MAX};
    msgs[i].msg_hdr = (struct msghdr){.msg_name = &addrs[i], .msg_namelen = sizeof addrs[i], .msg_iov = &iovs[i], .msg_iovlen = 1};
    msgs[i].msg_len = 0;
  }
  int n;
  do n = recvmmsg(fd, msgs, BATCH, MSG_DONTWAIT, NULL);
  while (n < 0 && errno == EINTR);
  return n;
}

static void to_node(UdpListener *l, int i) {
  size_t len = msgs[i].msg_len;
  Event *e = malloc(sizeof(Event) + len);
  if (!e) return;
  memset(e, 0, sizeof(Event));
  e->kind = 1;
  e->slot = l->h.slot;
  e->gen = l->h.gen;
  e->len = len;
  memcpy(e->data, bufs[i], len);
  if (addrs[i].ss_family == AF_INET) {
    struct sockaddr_in *s = (void *)&addrs[i];
    inet_ntop(AF_INET, &s->sin_addr, e->address, sizeof e->address);
    e->port = ntohs(s->sin_port);
  } else {
    struct sockaddr_in6 *s = (void *)&addrs[i];
    inet_ntop(AF_INET6, &s->sin6_addr, e->address, sizeof e->address);
    e->port = ntohs(s->sin6_port);
  }
  post(on_packet, e);
}

/* How many of outs[from..m) can leave as one GSO send: same size (the last may be shorter), bounded. */
static int gso_span(int from, int m) {
  size_t size = outs[from].msg_hdr.msg_iov->iov_len;
  if (size > GSO_DGRAM_MAX || size == 0) return 1;
  int k = 1;
  size_t total = size;
  while (from + k < m && k < GSO_SEGMENTS) {
    size_t next = outs[from + k].msg_hdr.msg_iov->iov_len;
    if (next > size || next == 0 || total + next > GSO_BYTES) break;
    total += next;
    k++;
    if (next < size) break; /* a shorter one can only be the last */
  }
  return k;
}

/* outs[from..from+k) in one send with UDP_SEGMENT; -1 with errno when the kernel refused it. */
static ssize_t send_gso(int fd, int from, int k) {
  size_t size = outs[from].msg_hdr.msg_iov->iov_len, total = 0;
  for (int j = from; j < from + k; j++) {
    struct iovec *v = outs[j].msg_hdr.msg_iov;
    memcpy(gso_buf + total, v->iov_base, v->iov_len);
    total += v->iov_len;
  }
  union {
    char buf[CMSG_SPACE(sizeof(uint16_t))];
    struct cmsghdr align;
  } control;
  memset(&control, 0, sizeof control);
  struct iovec iov = {.iov_base = gso_buf, .iov_len = total};
  struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf};
  struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
  cm->cmsg_level = SOL_UDP;
  cm->cmsg_type = UDP_SEGMENT;
  cm->cmsg_len = CMSG_LEN(sizeof(uint16_t));
  uint16_t seg = (uint16_t)size;
  memcpy(CMSG_DATA(cm), &seg, sizeof seg);
  return sendmsg(fd, &mh, MSG_DONTWAIT);
}

/*
 * A run of datagrams for one session, out on its connected socket: those of one size together in
 * one GSO send (the kernel crosses its stack once for them), the others in one sendmmsg. A refusal
 * ("port unreachable") ends the session so that Node can fail over; a full socket buffer drops the
 * rest, as the network would.
 */
static void send_run(UdpSession *s, int m, int64_t now) {
  int sent = 0;
  while (sent < m) {
    int k = s->no_gso ? 1 : gso_span(sent, m);
    ssize_t r;
    if (k > 1) {
      r = send_gso(s->fd, sent, k);
      if (r < 0 && (errno == EINVAL || errno == EIO || errno == ENOPROTOOPT || errno == EOPNOTSUPP)) {
        s->no_gso = 1; /* an older kernel, or a device without checksum offload */
        continue;
      }
      if (r >= 0) {
        for (int j = sent; j < sent + k; j++) s->bytes_in += outs[j].msg_hdr.msg_iov->iov_len;
        sent += k;
        continue;
      }
    } else {
      /* Up to the next run GSO could take, in one sendmmsg. */
      int upto = sent + 1;
      while (upto < m && (s->no_gso || gso_span(upto, m) == 1)) upto++;
      r = sendmmsg(s->fd, outs + sent, (unsigned)(upto - sent), MSG_DONTWAIT);
      if (r > 0) {
        for (int j = sent; j < sent + (int)r; j++) s->bytes_in += outs[j].msg_len;
        sent += (int)r;
        continue;
      }
      if (r == 0) break;
    }
    if (errno == EINTR) continue;
    if (errno == ECONNREFUSED || errno == EHOSTUNREACH || errno == ENETUNREACH) {
      end(&s->h, REASON_ERROR, errno);
      return;
    }
    break;
  }
  if (sent > 0) s->last = now;
}

/*
 * Client → target: each datagram goes out on its session's socket (those of one session in a row
 * together), or to Node. The session is looked up after the previous run went out, so a session
 * that ended on the way is never used.
 */
static void run_listener(UdpListener *l, int64_t now) {
  for (int turn = 0; turn < TURN_BATCHES; turn++) {
    int n = recv_batch(l->fd);
    if (n <= 0) return; /* EAGAIN: the next edge brings us back; errors: ICMP noise, nothing to end */
    UdpSession *run = NULL;
    int m = 0;
    for (int i = 0; i < n; i++) {
      if (msgs[i].msg_len > l->max_packet || (msgs[i].msg_hdr.msg_flags & MSG_TRUNC)) continue;
      UdpSession *s = find_session(l, &addrs[i]);
      if (s != run && m > 0) {
        send_run(run, m, now);
        m = 0;
        /* The run may have ended its session: look the datagram's up again. */
        s = find_session(l, &addrs[i]);
      }
      run = s;
      if (!s) {
        to_node(l, i);
        continue;
      }
      iovs[i].iov_len = msgs[i].msg_len;
      outs[m].msg_hdr = (struct msghdr){.msg_iov = &iovs[i], .msg_iovlen = 1};
      outs[m].msg_len = 0;
      m++;
    }
    if (m > 0) send_run(run, m, now);
    if (n < BATCH) return;
  }
  set_again(&l->h);
}

/* Target → client: replies go back through the listener, in batches. */
static void run_session(UdpSession *s, int64_t now) {
  UdpListener *l = (UdpListener *)lookup(s->listener_slot, s->listener_gen);
  if (!l || l->h.kind != KIND_UDP_LISTENER) { end(&s->h, REASON_ERROR, EBADF); return; }
  for (int turn = 0; turn < TURN_BATCHES; turn++) {
    int n = recv_batch(s->fd);
    if (n < 0) {
      if (errno == EAGAIN) return;
      /* "Port unreachable" and the like: the session ends so that Node can fail over. */
      { end(&s->h, REASON_ERROR, errno); return; }
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
      if (msgs[i].msg_len > l->max_packet || (msgs[i].msg_hdr.msg_flags & MSG_TRUNC)) continue;
      iovs[i].iov_len = msgs[i].msg_len;
      outs[m].msg_hdr = (struct msghdr){.msg_name = &s->client, .msg_namelen = s->client_len, .msg_iov = &iovs[i], .msg_iovlen = 1};
      outs[m].msg_len = 0;
      m++;
    }
    int sent = 0;
    while (sent < m) {
      int k = sendmmsg(l->fd, outs + sent, (unsigned)(m - sent), MSG_DONTWAIT);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) break; /* full: the rest is dropped */
      for (int j = sent; j < sent + k; j++) s->bytes_out += outs[j].msg_len;
      sent += k;
    }
    if (n > 0) s->last = now;
    if (n < BATCH) return;
  }
  set_again(&s->h);
}

/* ------------------------------------------------------------------ files */

/* Sends until the socket would block (EPOLLOUT brings us back), the turn is used, or the end. */
static void run_send(FileSend *f, int64_t now) {
  size_t budget = TURN_BYTES;
  while (f->left > 0) {
    if (budget == 0) {
      set_again(&f->h);
      return;
    }
    size_t want = f->left < budget ? (size_t)f->left : budget;
    ssize_t n = sendfile(f->sock, f->file, &f->offset, want);
    if (n > 0) {
      f->bytes += (uint64_t)n;
      if (f->left != UNLIMITED) f->left -= (uint64_t)n;
      budget -= (size_t)n;
      f->last = now;
      continue;
    }
    if (n == 0) break; /* the end of the file (it may have shrunk since the transfer began) */
    if (errno == EINTR) continue;
    if (errno == EAGAIN) return;
    end(&f->h, REASON_ERROR, errno);
    return;
  }
  /* The FIN goes after the bytes still in the socket buffer; Node closes the socket on the end. */
  if (!f->keep_open) shutdown(f->sock, SHUT_WR);
  end(&f->h, REASON_DONE, 0);
}

/* Socket → pipe → file until the socket would block, the turn is used, EOF, or the limit. */
static void run_recv(FileRecv *f, int64_t now) {
  Dir *d = &f->d;
  size_t budget = TURN_BYTES;
  for (;;) {
    if (d->in_pipe > 0) {
      /* Blocking: a regular file takes the whole write unless the disk fails (see FileSend). */
      ssize_t w = splice(d->pipe_r, NULL, f->file, &f->offset, d->in_pipe, SPLICE_F_MOVE);
      if (w > 0) {
        d->in_pipe -= (size_t)w;
        d->bytes += (uint64_t)w;
        continue;
      }
      if (w < 0 && errno == EINTR) continue;
      end(&f->h, REASON_ERROR, w < 0 ? errno : EIO);
      return;
    }
    if (d->eof) {
      end(&f->h, REASON_DONE, 0);
      return;
    }
    if (budget == 0) {
      set_again(&f->h);
      return;
    }
    if (d->pipe_r < 0 && take_pipe(d) < 0) {
      end(&f->h, REASON_ERROR, errno);
      return;
    }
    /* One byte past the limit is enough to know that the upload does not fit. */
    size_t want = CHUNK;
    if (f->limit != UNLIMITED && f->limit - f->received < want) want = (size_t)(f->limit - f->received) + 1;
    ssize_t r = splice(f->sock, NULL, d->pipe_w, NULL, want, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
    if (r > 0) {
      d->in_pipe = (size_t)r; /* set first: the end below must not put a full pipe back in the pool */
      f->received += (uint64_t)r;
      f->last = now;
      if (f->limit != UNLIMITED && f->received > f->limit) {
        end(&f->h, REASON_LIMIT, 0);
        return;
      }
      budget = (size_t)r >= budget ? 0 : budget - (size_t)r;
      continue;
    }
    if (r == 0) {
      d->eof = 1;
      continue;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN) {
      give_pipe(d); /* empty here; a stalled upload holds no pipe */
      return;
    }
    end(&f->h, REASON_ERROR, errno);
    return;
  }
}

static int64_t idle_limit(Head *h, int64_t *last) {
  if (h->kind == KIND_TCP) { *last = ((Tcp *)h)->last; return ((Tcp *)h)->idle_ms; }
  if (h->kind == KIND_FILE_SEND) { *last = ((FileSend *)h)->last; return ((FileSend *)h)->idle_ms; }
  if (h->kind == KIND_FILE_RECV) { *last = ((FileRecv *)h)->last; return ((FileRecv *)h)->idle_ms; }
  return 0;
}

/* ------------------------------------------------------------------ the thread */

static void run(Head *h, int64_t now) {
  clear_again(h);
  if (h->kind == KIND_TCP) run_tcp((Tcp *)h, now);
  else if (h->kind == KIND_FILE_SEND) run_send((FileSend *)h, now);
  else if (h->kind == KIND_FILE_RECV) run_recv((FileRecv *)h, now);
  else if (h->kind == KIND_UDP_LISTENER) run_listener((UdpListener *)h, now);
  else run_session((UdpSession *)h, now);
}

static void *loop(void *arg) {
  (void)arg;
  struct epoll_event evs[EVENTS];
  int64_t last_sweep = now_ms();
  for (;;) {
    pthread_mutex_lock(&lock);
    int pending = n_again > 0;
    pthread_mutex_unlock(&lock);
    int n = epoll_wait(ep, evs, EVENTS, pending ? 0 : 1000);
    if (n < 0 && errno != EINTR) break;
    int64_t now = now_ms();
    /* The lock is taken per object so that Node's calls wait for one object's turn at most. */
    for (int i = 0; i < n; i++) {
      uint64_t t = evs[i].data.u64;
      if (t == UINT64_MAX) {
        uint64_t v;
        if (read(wake_fd, &v, sizeof v) < 0) { /* nothing to do */ }
        continue;
      }
      pthread_mutex_lock(&lock);
      Head *h = lookup((uint32_t)(t & 0xffffffffu) >> 1, (uint32_t)(t >> 32));
      if (h) run(h, now);
      pthread_mutex_unlock(&lock);
    }
    pthread_mutex_lock(&lock);
    if (pending)
      for (uint32_t i = 0; i < nslots; i++)
        if (slots[i] && slots[i]->again) run(slots[i], now);
    /* TCP and file idle timeouts; Node sweeps UDP sessions itself (it asks for their idle time). */
    if (now - last_sweep >= 1000) {
      last_sweep = now;
      for (uint32_t i = 0; i < nslots; i++) {
        int64_t last = 0, limit = slots[i] ? idle_limit(slots[i], &last) : 0;
        if (limit > 0 && now - last >= limit) end(slots[i], REASON_IDLE, 0);
      }
    }
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

static void wake(void) {
  uint64_t one = 1;
  if (write(wake_fd, &one, sizeof one) < 0) { /* the loop wakes within a second anyway */ }
}

/* ------------------------------------------------------------------ JS side */

static void call_js(napi_env env, napi_value fn, void *context, void *data) {
  (void)context;
  Event *e = data;
  if (env && fn) {
    napi_value undef, argv[5];
    napi_get_undefined(env, &undef);
    napi_create_double(env, (double)e->slot + (double)e->gen * 4294967296.0, &argv[0]);
    if (e->kind == 0) {
      napi_create_double(env, (double)e->a, &argv[1]);
      napi_create_double(env, (double)e->b, &argv[2]);
      napi_create_int32(env, e->reason, &argv[3]);
      napi_create_int32(env, e->err, &argv[4]);
      napi_call_function(env, undef, fn, 5, argv, NULL);
    } else {
      void *copy;
      napi_create_buffer_copy(env, e->len, e->data, &copy, &argv[1]);
      napi_create_string_utf8(env, e->address, NAPI_AUTO_LENGTH, &argv[2]);
      napi_create_int32(env, e->port, &argv[3]);
      napi_call_function(env, undef, fn, 4, argv, NULL);
    }
  }
  free(e);
}

static napi_value throw_err(napi_env env, const char *msg) {
  napi_throw_error(env, NULL, msg);
  return NULL;
}

static napi_value throw_errno(napi_env env, const char *what, int err) {
  char msg[128];
  snprintf(msg, sizeof msg, "%s: %s", what, strerror(err));
  return throw_err(env, msg);
}

static napi_value js_start(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], name;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (started) return throw_err(env, "already started");
  if (argc < 2) return throw_err(env, "start(onEnd, onPacket) needs two functions");
  ep = epoll_create1(EPOLL_CLOEXEC);
  wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (ep < 0 || wake_fd < 0) return throw_errno(env, "epoll or eventfd", errno);
  struct epoll_event ev = {.events = EPOLLIN, .data.u64 = UINT64_MAX};
  epoll_ctl(ep, EPOLL_CTL_ADD, wake_fd, &ev);
  napi_create_string_utf8(env, "lucky relay", NAPI_AUTO_LENGTH, &name);
  if (napi_create_threadsafe_function(env, argv[0], NULL, name, 0, 1, NULL, NULL, NULL, call_js, &on_end) != napi_ok ||
      napi_create_threadsafe_function(env, argv[1], NULL, name, PACKETS_QUEUED, 1, NULL, NULL, NULL, call_js, &on_packet) != napi_ok)
    return throw_err(env, "cannot create the callbacks");
  /* The thread must not keep the event loop alive by itself. */
  napi_unref_threadsafe_function(env, on_end);
  napi_unref_threadsafe_function(env, on_packet);
  pthread_t thread;
  if (pthread_create(&thread, NULL, loop, NULL) != 0) return throw_err(env, "cannot start the relay thread");
  /* Named, so that top -H and /proc/<pid>/task tell its CPU time from the event loop's. */
  pthread_setname_np(thread, "lucky-relay");
  pthread_detach(thread);
  started = 1;
  return NULL;
}

/* Called with the lock held. */
static int grow(void) {
  if (nfree > 0) return 0;
  uint32_t n = nslots ? nslots * 2 : 1024;
  Head **s = realloc(slots, n * sizeof *s);
  if (!s) return -1;
  slots = s;
  uint32_t *g = realloc(gens, n * sizeof *g);
  if (!g) return -1;
  gens = g;
  uint32_t *f = realloc(free_slots, n * sizeof *f);
  if (!f) return -1;
  free_slots = f;
  for (uint32_t i = n; i > nslots; i--) {
    slots[i - 1] = NULL;
    gens[i - 1] = 0;
    free_slots[nfree++] = i - 1;
  }
  nslots = n;
  return 0;
}

static int args(napi_env env, napi_callback_info info, size_t want, napi_value *argv) {
  size_t argc = want;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  return argc >= want;
}

static int get_int(napi_env env, napi_value v, int64_t *out) { return napi_get_value_int64(env, v, out) == napi_ok; }

static Head *object_of(napi_env env, napi_value v) {
  double id;
  if (napi_get_value_double(env, v, &id) != napi_ok || id < 0) return NULL;
  uint64_t u = (uint64_t)id;
  return lookup((uint32_t)(u & 0xffffffffu), (uint32_t)(u >> 32));
}

static napi_value number(napi_env env, double d) {
  napi_value v;
  napi_create_double(env, d, &v);
  return v;
}

static napi_value js_tcp_add(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  int64_t fa, fb, idle;
  if (!started) return throw_err(env, "not started");
  if (!args(env, info, 3, argv) || !get_int(env, argv[0], &fa) || !get_int(env, argv[1], &fb) || !get_int(env, argv[2], &idle) || fa < 0 || fb < 0)
    return throw_err(env, "tcpAdd(fdA, fdB, idleMs) needs two descriptors and a number");
  Tcp *c = calloc(1, sizeof(Tcp));
  if (!c) return throw_err(env, "out of memory");
  pthread_mutex_lock(&lock);
  if (grow() < 0) {
    pthread_mutex_unlock(&lock);
    free(c);
    return throw_err(env, "out of memory");
  }
  take_slot(&c->h, KIND_TCP);
  c->fd[0] = (int)fa;
  c->fd[1] = (int)fb;
  c->dir[0] = (Dir){.src = (int)fa, .dst = (int)fb, .pipe_r = -1, .pipe_w = -1};
  c->dir[1] = (Dir){.src = (int)fb, .dst = (int)fa, .pipe_r = -1, .pipe_w = -1};
  c->idle_ms = idle;
  c->last = now_ms();
  set_again(&c->h); /* bytes may already wait: the first pass does not wait for an edge */
  int err = 0;
  if (watch_tcp(c, 0, EPOLL_CTL_ADD, 0) < 0) err = errno;
  else if (watch_tcp(c, 1, EPOLL_CTL_ADD, 0) < 0) {
    err = errno;
    epoll_ctl(ep, EPOLL_CTL_DEL, c->fd[0], NULL);
  }
  double id = id_of(&c->h);
  if (err) give_slot(&c->h);
  pthread_mutex_unlock(&lock);
  if (err) return throw_errno(env, "epoll_ctl", err);
  wake();
  return number(env, id);
}

/* fileSend(sockFd, fileFd, offset, length, idleMs[, keepOpen]) / fileReceive(sockFd, fileFd, offset, limit, idleMs). */
static napi_value add_file(napi_env env, napi_callback_info info, int kind) {
  napi_value argv[6];
  size_t argc = 6;
  int64_t sock, file, offset, amount, idle;
  bool keep = false;
  if (!started) return throw_err(env, "not started");
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc > 5 && napi_get_value_bool(env, argv[5], &keep) != napi_ok) keep = false;
  if (argc < 5 || !get_int(env, argv[0], &sock) || !get_int(env, argv[1], &file) || !get_int(env, argv[2], &offset) ||
      !get_int(env, argv[3], &amount) || !get_int(env, argv[4], &idle) || sock < 0 || file < 0 || offset < 0 || amount < -1)
    return throw_err(env, kind == KIND_FILE_SEND ? "fileSend(sockFd, fileFd, offset, length, idleMs)" : "fileReceive(sockFd, fileFd, offset, limit, idleMs)");
  Head *h;
  struct epoll_event ev = {0};
  int watched = (int)sock;
  if (kind == KIND_FILE_SEND) {
    FileSend *f = calloc(1, sizeof(FileSend));
    if (!f) return throw_err(env, "out of memory");
    /* A socket Node keeps is sent on through a descriptor of our own: whatever closes Node's (a
     * destroy at any moment) cannot leave this thread writing to a number reused by another file. */
    if (keep && (watched = fcntl((int)sock, F_DUPFD_CLOEXEC, 0)) < 0) {
      int e = errno;
      free(f);
      return throw_errno(env, "dup", e);
    }
    *f = (FileSend){.sock = watched, .file = (int)file, .offset = (off_t)offset, .left = amount < 0 ? UNLIMITED : (uint64_t)amount, .idle_ms = idle, .last = now_ms(), .keep_open = keep};
    h = &f->h;
    /* Only writability matters: the peer sends nothing on a download, and an error or hang-up is
     * reported whatever the mask says. */
    ev.events = EPOLLOUT | EPOLLET;
  } else {
    FileRecv *f = calloc(1, sizeof(FileRecv));
    if (!f) return throw_err(env, "out of memory");
    *f = (FileRecv){.sock = (int)sock, .file = (int)file, .offset = (off_t)offset, .limit = amount < 0 ? UNLIMITED : (uint64_t)amount, .idle_ms = idle, .last = now_ms()};
    f->d = (Dir){.src = (int)sock, .dst = (int)file, .pipe_r = -1, .pipe_w = -1};
    h = &f->h;
    ev.events = EPOLLIN | EPOLLRDHUP | EPOLLET;
  }
  int own = watched != (int)sock;
  pthread_mutex_lock(&lock);
  if (grow() < 0) {
    pthread_mutex_unlock(&lock);
    if (own) close(watched);
    free(h);
    return throw_err(env, "out of memory");
  }
  take_slot(h, kind);
  set_again(h); /* the socket may already be writable / have bytes waiting: no edge would come */
  ev.data.u64 = tag(h, 0);
  int err = epoll_ctl(ep, EPOLL_CTL_ADD, watched, &ev) < 0 ? errno : 0;
  double id = id_of(h);
  if (err) {
    if (own) close(watched);
    give_slot(h);
  }
  pthread_mutex_unlock(&lock);
  if (err) return throw_errno(env, "epoll_ctl", err);
  wake();
  return number(env, id);
}

static napi_value js_file_send(napi_env env, napi_callback_info info) { return add_file(env, info, KIND_FILE_SEND); }
static napi_value js_file_receive(napi_env env, napi_callback_info info) { return add_file(env, info, KIND_FILE_RECV); }

/*
 * Room for a burst of datagrams while this thread waits for a core: 4 MB where allowed (as root;
 * otherwise up to the system's rmem_max). A flood otherwise overflows the default buffer.
 */
static void roomy(int fd) {
  int size = 4 << 20;
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) < 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
}

static napi_value js_udp_listen(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  int64_t fd, max;
  if (!started) return throw_err(env, "not started");
  if (!args(env, info, 2, argv) || !get_int(env, argv[0], &fd) || !get_int(env, argv[1], &max) || fd < 0)
    return throw_err(env, "udpListen(fd, maxPacket) needs a descriptor and a number");
  UdpListener *l = calloc(1, sizeof(UdpListener));
  if (!l) return throw_err(env, "out of memory");
  pthread_mutex_lock(&lock);
  if (grow() < 0) {
    pthread_mutex_unlock(&lock);
    free(l);
    return throw_err(env, "out of memory");
  }
  take_slot(&l->h, KIND_UDP_LISTENER);
  l->fd = (int)fd;
  l->max_packet = (uint32_t)max;
  roomy(l->fd);
  set_again(&l->h); /* datagrams may already wait */
  struct epoll_event ev = {.events = EPOLLIN | EPOLLET, .data.u64 = tag(&l->h, 0)};
  int err = epoll_ctl(ep, EPOLL_CTL_ADD, l->fd, &ev) < 0 ? errno : 0;
  double id = id_of(&l->h);
  if (err) give_slot(&l->h);
  pthread_mutex_unlock(&lock);
  if (err) return throw_errno(env, "epoll_ctl", err);
  wake();
  return number(env, id);
}

static napi_value js_udp_set_max(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  int64_t max;
  if (!args(env, info, 2, argv) || !get_int(env, argv[1], &max)) return throw_err(env, "udpSetMax(id, maxPacket)");
  pthread_mutex_lock(&lock);
  Head *h = object_of(env, argv[0]);
  if (h && h->kind == KIND_UDP_LISTENER) ((UdpListener *)h)->max_packet = (uint32_t)max;
  pthread_mutex_unlock(&lock);
  return NULL;
}

static int parse_addr(const char *text, int port, struct sockaddr_storage *out, socklen_t *len) {
  memset(out, 0, sizeof *out);
  struct sockaddr_in *v4 = (void *)out;
  struct sockaddr_in6 *v6 = (void *)out;
  if (inet_pton(AF_INET, text, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons((uint16_t)port);
    *len = sizeof *v4;
    return 0;
  }
  if (inet_pton(AF_INET6, text, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons((uint16_t)port);
    *len = sizeof *v6;
    return 0;
  }
  return -1;
}

static napi_value js_udp_session(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  int64_t fd, port;
  char address[INET6_ADDRSTRLEN + 1];
  size_t alen;
  if (!started) return throw_err(env, "not started");
  if (!args(env, info, 4, argv) || !get_int(env, argv[1], &fd) || !get_int(env, argv[3], &port) || fd < 0 ||
      napi_get_value_string_utf8(env, argv[2], address, sizeof address, &alen) != napi_ok)
    return throw_err(env, "udpSession(listenerId, fd, address, port)");
  UdpSession *s = calloc(1, sizeof(UdpSession));
  if (!s) return throw_err(env, "out of memory");
  /* Node gives IPv6 addresses with a zone as "fe80::1%eth0"; the zone is not part of the match. */
  char *zone = strchr(address, '%');
  if (zone) *zone = 0;
  if (parse_addr(address, (int)port, &s->client, &s->client_len) < 0) {
    free(s);
    return throw_err(env, "udpSession: not an IP address");
  }
  pthread_mutex_lock(&lock);
  Head *l = object_of(env, argv[0]);
  if (!l || l->kind != KIND_UDP_LISTENER || grow() < 0) {
    pthread_mutex_unlock(&lock);
    free(s);
    return throw_err(env, "udpSession: no such listener");
  }
  /* A v6 listener sees IPv4 clients as v4-mapped addresses: store them the way recvmmsg gives them. */
  struct sockaddr_storage local;
  socklen_t llen = sizeof local;
  if (getsockname(((UdpListener *)l)->fd, (struct sockaddr *)&local, &llen) == 0 && local.ss_family == AF_INET6 && s->client.ss_family == AF_INET) {
    struct sockaddr_in v4 = *(struct sockaddr_in *)&s->client;
    struct sockaddr_in6 *v6 = (void *)&s->client;
    memset(&s->client, 0, sizeof s->client);
    v6->sin6_family = AF_INET6;
    v6->sin6_port = v4.sin_port;
    v6->sin6_addr.s6_addr[10] = v6->sin6_addr.s6_addr[11] = 0xff;
    memcpy(&v6->sin6_addr.s6_addr[12], &v4.sin_addr, 4);
    s->client_len = sizeof *v6;
  }
  take_slot(&s->h, KIND_UDP_SESSION);
  s->fd = (int)fd;
  roomy(s->fd);
  s->listener_slot = l->slot;
  s->listener_gen = l->gen;
  s->last = now_ms();
  set_again(&s->h);
  struct epoll_event ev = {.events = EPOLLIN | EPOLLET, .data.u64 = tag(&s->h, 0)};
  int err = epoll_ctl(ep, EPOLL_CTL_ADD, s->fd, &ev) < 0 ? errno : 0;
  double id = id_of(&s->h);
  if (err) give_slot(&s->h);
  else {
    uint32_t b = hash_addr(s->listener_slot, &s->client);
    s->next = buckets[b];
    buckets[b] = s;
  }
  pthread_mutex_unlock(&lock);
  if (err) return throw_errno(env, "epoll_ctl", err);
  wake();
  return number(env, id);
}

static napi_value triple(napi_env env, uint64_t a, uint64_t b, int64_t c, int with_c) {
  napi_value arr;
  napi_create_array_with_length(env, with_c ? 3 : 2, &arr);
  napi_set_element(env, arr, 0, number(env, (double)a));
  napi_set_element(env, arr, 1, number(env, (double)b));
  if (with_c) napi_set_element(env, arr, 2, number(env, (double)c));
  return arr;
}

static napi_value js_counters(napi_env env, napi_callback_info info) {
  napi_value argv[1], out;
  if (!args(env, info, 1, argv)) return throw_err(env, "counters(id)");
  uint64_t a = 0, b = 0;
  int64_t idle = 0;
  pthread_mutex_lock(&lock);
  Head *h = object_of(env, argv[0]);
  if (h) counters(h, &a, &b, &idle);
  pthread_mutex_unlock(&lock);
  if (h) return triple(env, a, b, idle, 1);
  napi_get_null(env, &out);
  return out;
}

static napi_value js_remove(napi_env env, napi_callback_info info) {
  napi_value argv[1], out;
  if (!args(env, info, 1, argv)) return throw_err(env, "remove(id)");
  uint64_t a = 0, b = 0;
  int64_t idle = 0;
  pthread_mutex_lock(&lock);
  Head *h = object_of(env, argv[0]);
  if (h) {
    counters(h, &a, &b, &idle);
    if (h->kind == KIND_UDP_LISTENER) {
      /* Its sessions cannot outlive it. */
      for (uint32_t i = 0; i < nslots; i++) {
        UdpSession *s = (UdpSession *)slots[i];
        if (s && s->h.kind == KIND_UDP_SESSION && s->listener_slot == h->slot && s->listener_gen == h->gen) drop(&s->h);
      }
    }
    drop(h);
  }
  pthread_mutex_unlock(&lock);
  if (h) return triple(env, a, b, 0, 0);
  napi_get_null(env, &out);
  return out;
}

/*
 * listenTcp(ip, port, ipv6Only, backlog) -> fd, or -errno. A listening socket with SO_REUSEPORT,
 * for the web engine's serving threads: each thread gets its own socket on the same port and the
 * kernel spreads new connections over them. Node 20 cannot set SO_REUSEPORT itself. `ip` is a
 * numeric address (the contracts allow nothing else); the caller owns the descriptor.
 */
static napi_value js_listen_tcp(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  char ip[64];
  size_t iplen = 0;
  int64_t port, backlog;
  bool v6only = false;
  if (!args(env, info, 4, argv) || napi_get_value_string_utf8(env, argv[0], ip, sizeof ip, &iplen) != napi_ok || !get_int(env, argv[1], &port) ||
      napi_get_value_bool(env, argv[2], &v6only) != napi_ok || !get_int(env, argv[3], &backlog) || port < 0 || port > 65535)
    return throw_err(env, "listenTcp(ip, port, ipv6Only, backlog)");
  struct addrinfo hints = {0}, *ai = NULL;
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
  hints.ai_socktype = SOCK_STREAM;
  char service[8];
  snprintf(service, sizeof service, "%d", (int)port);
  if (getaddrinfo(ip, service, &hints, &ai) != 0 || !ai) return number(env, -EINVAL);
  int err = 0, one = 1, v6 = v6only ? 1 : 0;
  int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) err = errno;
  else if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) < 0 ||
           (ai->ai_family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6, sizeof v6) < 0) ||
           bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, backlog > 0 ? (int)backlog : 511) < 0)
    err = errno;
  freeaddrinfo(ai);
  if (err) {
    if (fd >= 0) close(fd);
    return number(env, -err);
  }
  return number(env, fd);
}

/*
 * connectTcp(localIp, localPort, ip, port) -> fd, or -errno. An outbound TCP socket bound to a port
 * that a SO_REUSEPORT listener already holds: STUN over TCP learns, and keeps open, the NAT mapping
 * of the listener's own port this way (Node can bind a client socket but not share its port). The
 * connect is started non-blocking; poll connectState(fd), then hand the fd to a net.Socket.
 */
static napi_value js_connect_tcp(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  char lip[64], rip[64];
  size_t len = 0;
  int64_t lport, rport;
  if (!args(env, info, 4, argv) || napi_get_value_string_utf8(env, argv[0], lip, sizeof lip, &len) != napi_ok || !get_int(env, argv[1], &lport) ||
      napi_get_value_string_utf8(env, argv[2], rip, sizeof rip, &len) != napi_ok || !get_int(env, argv[3], &rport) || lport < 0 || lport > 65535 ||
      rport < 1 || rport > 65535)
    return throw_err(env, "connectTcp(localIp, localPort, ip, port)");
  struct addrinfo hints = {0}, *local = NULL, *remote = NULL;
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
  hints.ai_socktype = SOCK_STREAM;
  char lservice[8], rservice[8];
  snprintf(lservice, sizeof lservice, "%d", (int)lport);
  snprintf(rservice, sizeof rservice, "%d", (int)rport);
  if (getaddrinfo(lip, lservice, &hints, &local) != 0 || !local) return number(env, -EINVAL);
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
  if (getaddrinfo(rip, rservice, &hints, &remote) != 0 || !remote || remote->ai_family != local->ai_family) {
    freeaddrinfo(local);
    if (remote) freeaddrinfo(remote);
    return number(env, -EINVAL);
  }
  int err = 0, one = 1;
  int fd = socket(local->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) err = errno;
  else if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) < 0 ||
           bind(fd, local->ai_addr, local->ai_addrlen) < 0 || (connect(fd, remote->ai_addr, remote->ai_addrlen) < 0 && errno != EINPROGRESS))
    err = errno;
  freeaddrinfo(local);
  freeaddrinfo(remote);
  if (err) {
    if (fd >= 0) close(fd);
    return number(env, -err);
  }
  return number(env, fd);
}

/*
 * acceptTcp(fd, max) -> [fd, ...]: the connections waiting on a listening socket, at most `max`,
 * accepted now (non-blocking, close-on-exec). libuv accepts one connection per event-loop turn
 * (since 1.45), so a busy serving thread with hundreds of ready sockets took a burst of a thousand
 * connects at tens per second while they waited in the queue; its server calls this on each
 * connection to take the rest of the queue in the same turn. Stops at an empty queue or any
 * error (EMFILE included: libuv's own accept reports that); the caller owns the descriptors.
 */
static napi_value js_accept_tcp(napi_env env, napi_callback_info info) {
  napi_value argv[2], arr;
  int64_t fd, max;
  if (!args(env, info, 2, argv) || !get_int(env, argv[0], &fd) || !get_int(env, argv[1], &max) || fd < 0 || max < 0)
    return throw_err(env, "acceptTcp(fd, max)");
  napi_create_array(env, &arr);
  uint32_t n = 0;
  while (n < (uint64_t)max) {
    int c = accept4((int)fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (c < 0) {
      if (errno == ECONNABORTED || errno == EINTR) continue;
      break;
    }
    napi_set_element(env, arr, n++, number(env, c));
  }
  return arr;
}

/* connectState(fd) -> 0 connected, 1 still connecting, -errno failed (the fd stays the caller's). */
static napi_value js_connect_state(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  int64_t fd;
  if (!args(env, info, 1, argv) || !get_int(env, argv[0], &fd) || fd < 0) return throw_err(env, "connectState(fd)");
  struct pollfd p = {.fd = (int)fd, .events = POLLOUT};
  int r = poll(&p, 1, 0);
  if (r < 0) return number(env, -errno);
  if (r == 0) return number(env, 1);
  int e = 0;
  socklen_t l = sizeof e;
  if (getsockopt((int)fd, SOL_SOCKET, SO_ERROR, &e, &l) < 0) return number(env, -errno);
  return number(env, e ? -e : 0);
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"start", NULL, js_start, NULL, NULL, NULL, napi_default, NULL},
      {"tcpAdd", NULL, js_tcp_add, NULL, NULL, NULL, napi_default, NULL},
      {"udpListen", NULL, js_udp_listen, NULL, NULL, NULL, napi_default, NULL},
      {"udpSetMax", NULL, js_udp_set_max, NULL, NULL, NULL, napi_default, NULL},
      {"udpSession", NULL, js_udp_session, NULL, NULL, NULL, napi_default, NULL},
      {"fileSend", NULL, js_file_send, NULL, NULL, NULL, napi_default, NULL},
      {"fileReceive", NULL, js_file_receive, NULL, NULL, NULL, napi_default, NULL},
      {"counters", NULL, js_counters, NULL, NULL, NULL, napi_default, NULL},
      {"remove", NULL, js_remove, NULL, NULL, NULL, napi_default, NULL},
      {"listenTcp", NULL, js_listen_tcp, NULL, NULL, NULL, napi_default, NULL},
      {"connectTcp", NULL, js_connect_tcp, NULL, NULL, NULL, napi_default, NULL},
      {"connectState", NULL, js_connect_state, NULL, NULL, NULL, napi_default, NULL},
      {"acceptTcp", NULL, js_accept_tcp, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  files_init(env, exports);
  serving_init(env, exports);
  return exports;
}

NAPI_MODULE(relay, init)
