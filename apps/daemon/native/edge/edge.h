/*
 * The web data plane ("edge"): web rules served by native threads, nginx's way (one epoll loop per
 * thread, edge-triggered, every socket non-blocking, one request's bytes read and written in as few
 * system calls as the kernel allows). JavaScript stays the control plane: it compiles each rule into
 * a Table (table.c, built from the object web.edgetable.ts makes), and it serves every request the
 * table sends its way (a file site, a cache, a login, CORS, a trusted proxy's headers...): those go,
 * as HTTP/1.1 with the client's address in a header of our own, over a socketpair whose other end
 * the rule's Node server adopts (fallback.c). Nobody else can reach that server.
 *
 * Threads share nothing they write but the per-rule access log (a mutex) and the backends' health
 * (plain integers: a lost update costs one more or one less try). Each thread has its own clients,
 * upstream connection pools and counters.
 */
#ifndef LUCKY_EDGE_H
#define LUCKY_EDGE_H

#define _GNU_SOURCE
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "http1.h"

#define EDGE_MAX_WORKERS 16
/* A request head may take this much (Node's path: 16 KiB too); more is 431. */
#define EDGE_HEAD_MAX (16 * 1024)
/* Read buffers of clients and upstream connections. */
#define EDGE_BUF (16 * 1024)
/* Node's path: 20 s to send a head, 5 s between requests on a kept-alive connection, 300 s per request. */
#define EDGE_HEAD_TIMEOUT_MS 20000
#define EDGE_KEEPALIVE_MS 5000
#define EDGE_REQUEST_TIMEOUT_MS 300000
/* After a last answer that closes, unread bytes are read and dropped (nginx's lingering close), so that
 * closing with them unread does not reset the answer before the client reads it: until the client has
 * been quiet this long, and no longer than the whole time (nginx: lingering_timeout, lingering_time). */
#define EDGE_LINGER_QUIET_MS 5000
#define EDGE_LINGER_MS 30000
/* Idle upstream connections kept per backend per thread, and for how long. */
#define EDGE_POOL_IDLE_MAX 1024
#define EDGE_POOL_IDLE_MS 30000
/* A thread's room for a head or an answer being built. */
#define EDGE_SCRATCH (64 * 1024)

typedef struct Worker Worker;
typedef struct Rule Rule;
typedef struct Table Table;
typedef struct Site Site;
typedef struct Backend Backend;
typedef struct Client Client;
typedef struct Upstream Upstream;
typedef struct Pool Pool;
struct TlsConf;
struct AuthCache;
struct Limiter;
struct ssl_st;
typedef struct H2Conn H2Conn;

/* What an epoll event's pointer points at: every such object starts with one. */
enum { EV_WAKE = 1, EV_LISTEN, EV_CLIENT, EV_UPSTREAM };
typedef struct {
  int kind;
} Ev;

/* ------------------------------------------------------------------ tables (table.c) */

typedef struct {
  uint8_t family; /* 4 or 6 */
  uint8_t bits;
  uint8_t addr[16];
} Cidr;

typedef struct {
  int whitelist;
  int n;
  Cidr *list;
} IpFilter;

typedef struct {
  int whitelist;
  int n;
  char **list; /* lower case */
  uint32_t *lens;
} UaFilter;

/* Template variables, as the Node path names them (web.handler.ts varsOf). */
enum { V_HOST, V_PORT, V_HOST_AND_PORT, V_PATH, V_SCHEME, V_CLIENT_IP, V_REMOTE_ADDR, V_METHOD, V_USER_AGENT, V_TIME, V_COUNT };

typedef struct {
  int var; /* -1: literal */
  const char *p;
  uint32_t n;
} Piece;

typedef struct {
  int n;
  Piece *pieces;
} Template;

typedef struct {
  char *name; /* lower case */
  uint32_t name_len;
  char *value;
  uint32_t value_len;
} Hdr;

struct Backend {
  int index;
  struct sockaddr_storage addr;
  socklen_t addr_len;
  char *host; /* host[:port] of the target, for Host when the request's is not kept */
  uint32_t host_len;
  char *base; /* the target's path without its last '/' */
  uint32_t base_len;
  char *url;
  /* Health, shared by the threads. */
  volatile int fails;
  volatile int64_t down_until;
  volatile int healthy; /* active checks (JavaScript runs them) */
  volatile int active;  /* requests in flight, for least connections */
};

enum { BAL_RR = 0, BAL_LEASTCONN, BAL_IPHASH };

typedef struct {
  int n;
  Backend *backends;
  int balance;
  int max_fails;
  int64_t fail_timeout_ms;
  int64_t timeout_ms;
  int use_request_host;
  int forwarded;
  int websocket;
  int64_t ws_idle_ms;
  int nreq, nres;
  Hdr *req_headers, *res_headers;
  volatile unsigned rr;
} Proxy;

enum { SVC_PROXY = 1, SVC_TEXT, SVC_REDIRECT, SVC_JUMP, SVC_CLOSE, SVC_FALLBACK };

struct Site {
  char *name; /* for the access log: '' for the default service */
  uint32_t name_len;
  int type;
  /* Requests this site sends to the Node path whatever they are. */
  int auth;       /* basic auth: Node checks it (scrypt) */
  struct AuthCache *authorized; /* headers Node verified (auth.c) */
  int portal;     /* Lucky login: Node checks a session; its pages are Node's */
  struct AuthCache *sessions;   /* session tokens Node verified, with their users */
  char *user_header;            /* the app gets the user in it ("" = not at all) */
  uint32_t user_header_len;
  int cors;       /* requests with an Origin */
  int nip, nua;
  IpFilter *ip;
  UaFilter *ua;
  char *robots; /* NULL: off */
  uint32_t robots_len;
  /* The service. */
  Proxy proxy;
  int status; /* text */
  char *content_type;
  uint32_t content_type_len;
  Template body; /* text body; redirect and jump target */
  int code;      /* redirect */
};

typedef struct {
  char *name;
  uint32_t len;
  int site;
} HostEntry;

struct Table {
  volatile int refs;
  int tls;
  int port;
  int challenges; /* ACME HTTP-01 answers wait on the Node path */
  int ntrusted;
  Cidr *trusted;
  int nexact, nwild;
  HostEntry *exact; /* sorted by name */
  HostEntry *wild;  /* ".suffix", longest first */
  int nsites;
  Site *sites; /* [0]: the default service */
  uint32_t log_capacity;
  struct TlsConf *tls_conf; /* NULL: plain HTTP */
  /* Limits per client address (limit.c), kept in the rule's Limiter; 0 = none. */
  int64_t limit_per_ms; /* tokens (millionths) a ms */
  int64_t limit_cap;    /* the bucket's depth, in millionths */
  int limit_conns;
  uint64_t max_body;
};

Table *table_ref(Table *t);
void table_unref(Table *t);
void table_free(Table *t);
/* The site for a lower-case host (exact, then the longest *.suffix, then the default). */
Site *table_site(Table *t, const char *host, uint32_t n);
int cidr_match(const Cidr *list, int n, const uint8_t *addr, int family);

/* ------------------------------------------------------------------ rules and figures (rule.c, log.c) */

/* Upper bounds (us) of the request duration buckets: WEB_DURATION_BUCKETS of the contracts, in seconds there. */
#define EDGE_DUR_BUCKETS 11
extern const int64_t edge_dur_bounds_us[EDGE_DUR_BUCKETS];

/* Counters of one rule on one thread; summed when read. */
typedef struct {
  uint64_t requests;
  uint64_t native, fallback;
  uint64_t bytes_in, bytes_out;
  int64_t connections;
  uint64_t codes[600];
  /* Requests by time from head to answer's end: one count per bucket and one past the last. */
  uint64_t dur[EDGE_DUR_BUCKETS + 1];
  uint64_t dur_us;
} Stats;

typedef struct LogEntry LogEntry;
typedef struct {
  pthread_mutex_t lock;
  uint32_t capacity, head, size;
  LogEntry **ring;
} AccessLog;

struct Rule {
  Ev ev; /* EV_LISTEN */
  uint32_t id;
  int fd;
  int ipv6;
  Table *latest;                   /* under the edge lock */
  Table *tables[EDGE_MAX_WORKERS]; /* each thread's own, swapped by a command */
  Stats *stats[EDGE_MAX_WORKERS];
  struct Limiter *limiter; /* made with the first table that has limits; kept across saves */
  AccessLog log;
  volatile int removing;
  volatile int workers_done; /* threads that have let go of it */
  int64_t grace_until;
};

/* ------------------------------------------------------------------ threads (worker.c) */

typedef struct Cmd Cmd;
struct Cmd {
  int op;
  Rule *rule;
  Table *table;
  Cmd *next;
};
enum { CMD_ADD = 1, CMD_SWAP, CMD_REMOVE, CMD_STOP };

struct Worker {
  Ev wake_ev;
  int index;
  int ep;
  int wake_fd;
  pthread_t tid;
  pthread_mutex_t lock; /* cmds */
  Cmd *cmds;
  int64_t now;
  int64_t next_sweep;
  int stopping;
  Cmd *removing; /* rules being removed, until this thread is done with them */
  Client *again; /* clients to run again at the end of this turn */
  Rule *paused[8]; /* rules whose listener this thread left for a moment (out of descriptors) */
  int64_t paused_until[8];
  Client *clients; /* every client, for the timer sweep */
  Upstream *upstreams;
  Pool *pools;
  void *dead; /* closed objects, freed after the events of this turn */
  char date[40]; /* "Date: ..." of the current second */
  int64_t date_sec;
  char *scratch; /* a head being built */
  h1_request req;
  h1_response res;
};

extern int edge_workers;
extern Worker edge_w[EDGE_MAX_WORKERS];

int64_t edge_now_ms(void);
int64_t edge_now_us(void);
void worker_pause_accept(Worker *w, Rule *r);
void worker_post(Worker *w, Cmd *c);
const char *worker_date(Worker *w, uint32_t *len);
void worker_defer_free(Worker *w, void *obj, void (*fn)(void *));

/* ------------------------------------------------------------------ connections */

/* Where a request is going (client.c). */
/* C_H2: an HTTP/2 connection (its streams are Clients of their own); a stream's answer is C_SENDING
 * while nghttp2 takes its body, C_DONE once logged, until nghttp2 closes the stream. */
enum { C_HANDSHAKE = 1, C_HEAD, C_ANSWER, C_EXCHANGE, C_TUNNEL, C_LINGER, C_H2, C_SENDING, C_DONE, C_CLOSED };

/* A request on its way to a backend or to the Node server, and its answer (exchange.c). */
typedef struct {
  Site *site;
  Backend *backend;
  int backend_held; /* counted in the backend's `active` */
  Upstream *up;
  int fallback;
  int upgrade;
  int repeatable; /* body-less and idempotent: may be sent twice */
  int attempts;
  uint64_t tried; /* backends that failed it, by index (the first 64) */
  /* The request head as the upstream gets it: the part that depends on the backend, then the rest. */
  char *line, *rest;
  uint32_t line_len, rest_len, sent;
  /* Method, path and the client's Host, kept for a head to another backend. */
  char *keep;
  uint32_t method_n, path_n, host_n;
  /* Request body: passed on raw as the client framed it (0 none, 1 length, 2 chunked). */
  int req_mode;
  uint64_t req_left;
  h1_chunked req_ch;
  uint32_t req_ready; /* bytes at the client's buffer's start checked and ready to go */
  int req_parsed;     /* its end has been read */
  int req_done;       /* and all of it sent */
  /* Response: 0 no body, 1 length, 2 chunked, 3 to the close re-framed as chunked, 4 to the close. */
  int head_seen, head_sent;
  int res_mode;
  uint64_t res_left;
  h1_chunked res_ch;
  int res_complete; /* the backend's part is over; the client may still be taking the last bytes */
  int status;
  uint64_t res_bytes;
} Exchange;

struct Client {
  Ev ev;
  int fd;
  Worker *w;
  Rule *rule;
  Table *table; /* of the request under way */
  Client *prev, *next;
  int state;
  int readable, writable, rdhup, hup;
  int keep_alive;
  int is_head;
  int http11;
  int in_request;
  int requests;
  int limit_counted; /* this connection is counted in the rule's Limiter */
  int portal_user_len;        /* -1: the request is not a portal session's */
  char portal_user[129];      /* AUTH_USER_MAX + 1 */
  int over_limit;    /* one connection too many for its address: its requests get 429 */
  int queued; /* in the worker's `again` list */
  Client *again_next;
  int tunnel_eof, tunnel_down_done;
  int64_t tunnel_idle_ms;
  char *buf;
  uint32_t off, len;
  size_t scan;
  /* Bytes on their way to the client: owned bytes first, then a span of an upstream's buffer. */
  char *out;
  uint32_t out_cap, out_len, out_off;
  const char *span;
  uint32_t span_len;
  char tail[8];
  uint32_t tail_len, tail_off;
  Upstream *span_owner;
  int64_t deadline;
  int64_t linger_until;
  int64_t t0_us;
  uint64_t bytes_in, bytes_out, counted_in, counted_out, req_bytes_out;
  uint8_t peer[16];
  int family;
  char ip[48];
  uint32_t ip_len;
  uint16_t peer_port;
  LogEntry *entry; /* the access log's record of the request under way */
  Exchange x;
  /* TLS (tls.c): the connection, the record being written, what OpenSSL waits for. */
  struct ssl_st *ssl;
  Table *hs_table; /* held while the handshake may still call into its certificates */
  char *tls_buf;
  uint32_t tls_off, tls_len;
  int tls_wants_read, tls_wants_write;
  /* HTTP/2 (h2.c): a connection's session; a stream's connection, id, buffer size and progress. */
  H2Conn *h2c;
  Client *h2_parent;
  Client *h2_next;
  void *h2_req;
  int32_t stream_id;
  int32_t h2_chunk_open; /* where the body's chunk not sent yet starts, -1 none */
  uint32_t cap;
  uint32_t h2_unconsumed; /* body bytes not yet given back to flow control */
  int h2_submitted, h2_body_done, h2_deferred, h2_remote_ended, h2_drained, h2_consume, h2_eof, h2_stream_gone, h2_tunnel, h2_last_chunk;
};

/* One connection to a backend, or to the rule's Node server (fallback). */
struct Upstream {
  Ev ev;
  int fd;
  Worker *w;
  Pool *pool;
  Upstream *prev, *next;      /* the worker's list */
  Upstream *idle_next;        /* the pool's idle list */
  Client *client;             /* the exchange's client */
  int connecting, readable, writable, rdhup, eof, idle;
  int reusable;
  int got; /* a byte of the current answer came */
  char *buf;
  uint32_t off, len;
  size_t scan;
  int paused; /* body bytes wait for the client to take them */
  int64_t deadline;
  int64_t idle_ms;
  int64_t timeout_ms;
  int uses;
};

struct Pool {
  Pool *next;
  int fallback; /* a rule's Node server: key is the rule */
  Rule *rule;
  struct sockaddr_storage addr;
  socklen_t addr_len;
  Upstream *idle;
  int nidle;
};

/* client.c */
void client_accept(Worker *w, Rule *r);
void client_event(Client *c, uint32_t events);
void client_timeout(Client *c);
void client_close(Client *c);
void client_drop_rule(Worker *w, Rule *r, int all);

/* upstream.c */
/* An idle connection of the pool (unless `fresh`), else a new one (connecting). NULL with *err. */
Upstream *upstream_get(Worker *w, Rule *fallback_rule, const struct sockaddr_storage *addr, socklen_t len, int fresh, int *err);
void upstream_start(Upstream *u, Client *c);
void upstream_event(Upstream *u, uint32_t events);
void upstream_timeout(Upstream *u);
void upstream_release(Upstream *u);
void upstream_abort(Upstream *u);
void upstream_resume(Upstream *u);
int upstream_flush_request(Upstream *u);
void upstream_close_idle(Worker *w, Rule *r);
void upstream_free_pools(Worker *w);

/* fallback.c: a socketpair whose other end goes to the rule's Node server. */
int fallback_connect(Worker *w, Rule *r);

/* answer.c */
void answer_status(Client *c, int status, int close);
void answer_limited(Client *c, int status, int retry_after);

/* log.c */
void log_init(AccessLog *l, uint32_t capacity);
void log_resize(AccessLog *l, uint32_t capacity);
void log_destroy(AccessLog *l);
LogEntry *log_begin(Client *c, h1_request *req, Site *s);
void log_end(Client *c, int status, uint64_t bytes, int64_t us);

/* events to JavaScript (napi.c) */
/* The site by its index in the request's own table (the latest may be another by now). */
void edge_emit_backend_down(Rule *r, int site, Backend *b, int err);
int edge_emit_adopt(Rule *r, int fd);
void edge_emit_removed(Rule *r);

#endif
