/*
 * Zero-copy TCP relay for the port forwarding engine (Linux).
 *
 * Node copies every relayed byte into user space and back; splice(2) moves it from one socket to
 * the other through a kernel pipe instead. One background thread waits on an epoll set with both
 * sockets of every handed-over connection and moves bytes until the kernel would block, in both
 * directions, passing each side's FIN on as a half-close. Node keeps owning the descriptors: this
 * code never closes them, it reports the end of a pair and Node then destroys its sockets.
 *
 * JS API (N-API, so one build serves every Node version):
 *   start(onDone)                       once; onDone(id, bytesAtoB, bytesBtoA, reason, errno)
 *   add(fdA, fdB, idleMs) -> id         hand over a connected pair (A = client side)
 *   bytes(id) -> [aToB, bToA] | null    live counters
 *   abort(id) -> [aToB, bToA] | null    take the pair back at once (no onDone for it)
 * reason: 0 both sides finished, 1 error (errno set), 2 idle timeout.
 */
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include <node_api.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Bytes moved per splice call, and the pipe size asked for (the kernel may give less). */
#ifndef CHUNK
#define CHUNK (1024 * 1024)
#endif
/* Bytes one direction moves before other connections get their turn. */
#define TURN_BUDGET (4 * 1024 * 1024)
/* Idle pipes kept for reuse; a pipe is held only while bytes wait in it. */
#define PIPES_KEPT 32
#define EVENTS 256

enum { REASON_DONE = 0, REASON_ERROR = 1, REASON_IDLE = 2 };

typedef struct {
  int src, dst;
  int pipe_r, pipe_w; /* -1 when no pipe is held */
  size_t in_pipe;
  int eof;  /* src reached end of stream */
  int done; /* FIN passed on */
  uint64_t bytes;
} Dir;

typedef struct {
  uint32_t slot, gen;
  int fd[2];
  Dir dir[2];
  int64_t idle_ms;
  int64_t last;
  int again; /* ran out of its turn budget: pump again without waiting for an event */
  int out_armed[2]; /* EPOLLOUT asked for on fd[i]: only while a write to it would block */
} Conn;

typedef struct {
  uint32_t slot, gen;
  uint64_t a_to_b, b_to_a;
  int reason, err;
} Done;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t thread;
static int started = 0;
static int ep = -1;
static int wake_fd = -1;
static napi_threadsafe_function on_done;

static Conn **slots = NULL;
static uint32_t *gens = NULL;
static uint32_t nslots = 0;
static uint32_t *free_slots = NULL;
static uint32_t nfree = 0;

static int pipes[PIPES_KEPT][2];
static int npipes = 0;
/* Pairs with `again` set. */
static uint32_t n_again = 0;

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

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

static uint64_t tag(Conn *c, int side) { return ((uint64_t)c->gen << 32) | ((uint64_t)c->slot << 1) | (uint64_t)side; }

static Conn *lookup(uint32_t slot, uint32_t gen) {
  if (slot >= nslots) return NULL;
  Conn *c = slots[slot];
  return c && c->gen == gen ? c : NULL;
}

/* Takes the pair out of the epoll set and the table; the descriptors stay open (Node owns them). */
static void detach(Conn *c) {
  epoll_ctl(ep, EPOLL_CTL_DEL, c->fd[0], NULL);
  epoll_ctl(ep, EPOLL_CTL_DEL, c->fd[1], NULL);
  give_pipe(&c->dir[0]);
  give_pipe(&c->dir[1]);
  if (c->again) n_again--;
  slots[c->slot] = NULL;
  free_slots[nfree++] = c->slot;
}

static void finish(Conn *c, int reason, int err) {
  Done *d = malloc(sizeof(Done));
  detach(c);
  if (d) {
    d->slot = c->slot;
    d->gen = c->gen;
    d->a_to_b = c->dir[0].bytes;
    d->b_to_a = c->dir[1].bytes;
    d->reason = reason;
    d->err = err;
    if (napi_call_threadsafe_function(on_done, d, napi_tsfn_nonblocking) != napi_ok) free(d);
  }
  free(c);
}

/* Moves bytes one way until the kernel would block. Returns 0, or an errno. */
static int pump(Conn *c, Dir *d, int64_t now) {
  size_t budget = TURN_BUDGET;
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
      if (!c->again) n_again++;
      c->again = 1;
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
static int watch(Conn *c, int side, int op, int out) {
  struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | EPOLLET | (out ? EPOLLOUT : 0), .data.u64 = tag(c, side)};
  return epoll_ctl(ep, op, c->fd[side], &ev);
}

static void run(Conn *c, int64_t now) {
  if (c->again) n_again--;
  c->again = 0;
  for (int i = 0; i < 2; i++) {
    int err = pump(c, &c->dir[i], now);
    if (err) {
      finish(c, REASON_ERROR, err);
      return;
    }
  }
  if (c->dir[0].done && c->dir[1].done) {
    finish(c, REASON_DONE, 0);
    return;
  }
  /* dir[0] writes to fd[1], dir[1] to fd[0]. */
  for (int side = 0; side < 2; side++) {
    Dir *w = &c->dir[1 - side];
    int want = w->in_pipe > 0 && !w->done;
    if (want != c->out_armed[side]) {
      c->out_armed[side] = want;
      if (watch(c, side, EPOLL_CTL_MOD, want) < 0) {
        finish(c, REASON_ERROR, errno);
        return;
      }
    }
  }
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
    /* The lock is taken per pair so that Node's calls (stats, abort) wait for one pair at most. */
    for (int i = 0; i < n; i++) {
      uint64_t t = evs[i].data.u64;
      if (t == UINT64_MAX) {
        uint64_t v;
        if (read(wake_fd, &v, sizeof v) < 0) { /* nothing to do */ }
        continue;
      }
      pthread_mutex_lock(&lock);
      Conn *c = lookup((uint32_t)(t & 0xffffffffu) >> 1, (uint32_t)(t >> 32));
      if (c) run(c, now);
      pthread_mutex_unlock(&lock);
    }
    pthread_mutex_lock(&lock);
    if (pending)
      for (uint32_t i = 0; i < nslots; i++)
        if (slots[i] && slots[i]->again) run(slots[i], now);
    if (now - last_sweep >= 1000) {
      last_sweep = now;
      for (uint32_t i = 0; i < nslots; i++) {
        Conn *c = slots[i];
        if (c && c->idle_ms > 0 && now - c->last >= c->idle_ms) finish(c, REASON_IDLE, 0);
      }
    }
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

/* ------------------------------------------------------------------ JS side */

static void call_done(napi_env env, napi_value fn, void *context, void *data) {
  (void)context;
  Done *d = data;
  if (env && fn) {
    napi_value undef, argv[5];
    napi_get_undefined(env, &undef);
    napi_create_double(env, (double)d->slot + (double)d->gen * 4294967296.0, &argv[0]);
    napi_create_double(env, (double)d->a_to_b, &argv[1]);
    napi_create_double(env, (double)d->b_to_a, &argv[2]);
    napi_create_int32(env, d->reason, &argv[3]);
    napi_create_int32(env, d->err, &argv[4]);
    napi_call_function(env, undef, fn, 5, argv, NULL);
  }
  free(d);
}

static napi_value throw_err(napi_env env, const char *msg) {
  napi_throw_error(env, NULL, msg);
  return NULL;
}

static napi_value js_start(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], name;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (started) return throw_err(env, "already started");
  if (argc < 1) return throw_err(env, "start(onDone) needs a function");
  ep = epoll_create1(EPOLL_CLOEXEC);
  wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (ep < 0 || wake_fd < 0) return throw_err(env, "epoll or eventfd failed");
  struct epoll_event ev = {.events = EPOLLIN, .data.u64 = UINT64_MAX};
  epoll_ctl(ep, EPOLL_CTL_ADD, wake_fd, &ev);
  napi_create_string_utf8(env, "splice relay", NAPI_AUTO_LENGTH, &name);
  if (napi_create_threadsafe_function(env, argv[0], NULL, name, 0, 1, NULL, NULL, NULL, call_done, &on_done) != napi_ok)
    return throw_err(env, "cannot create the completion callback");
  /* The thread must not keep the event loop alive by itself. */
  napi_unref_threadsafe_function(env, on_done);
  if (pthread_create(&thread, NULL, loop, NULL) != 0) return throw_err(env, "cannot start the relay thread");
  pthread_detach(thread);
  started = 1;
  return NULL;
}

static int grow(void) {
  uint32_t n = nslots ? nslots * 2 : 1024;
  Conn **s = realloc(slots, n * sizeof *s);
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

static napi_value js_add(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3], out;
  int32_t fa, fb;
  int64_t idle;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (!started) return throw_err(env, "not started");
  if (argc < 3 || napi_get_value_int32(env, argv[0], &fa) != napi_ok || napi_get_value_int32(env, argv[1], &fb) != napi_ok ||
      napi_get_value_int64(env, argv[2], &idle) != napi_ok || fa < 0 || fb < 0)
    return throw_err(env, "add(fdA, fdB, idleMs) needs two descriptors and a number");
  Conn *c = calloc(1, sizeof(Conn));
  if (!c) return throw_err(env, "out of memory");
  pthread_mutex_lock(&lock);
  if (nfree == 0 && grow() < 0) {
    pthread_mutex_unlock(&lock);
    free(c);
    return throw_err(env, "out of memory");
  }
  c->slot = free_slots[--nfree];
  c->gen = ++gens[c->slot] & 0x1fffff; /* ids stay below 2^53 as JS numbers */
  if (c->gen == 0) c->gen = gens[c->slot] = 1;
  c->fd[0] = fa;
  c->fd[1] = fb;
  c->dir[0] = (Dir){.src = fa, .dst = fb, .pipe_r = -1, .pipe_w = -1};
  c->dir[1] = (Dir){.src = fb, .dst = fa, .pipe_r = -1, .pipe_w = -1};
  c->idle_ms = idle;
  c->last = now_ms();
  c->again = 1; /* bytes may already wait: the first pass does not wait for an edge */
  n_again++;
  slots[c->slot] = c;
  int ok = watch(c, 0, EPOLL_CTL_ADD, 0) == 0;
  if (ok && watch(c, 1, EPOLL_CTL_ADD, 0) != 0) {
    epoll_ctl(ep, EPOLL_CTL_DEL, fa, NULL);
    ok = 0;
  }
  if (!ok) {
    int err = errno;
    slots[c->slot] = NULL;
    free_slots[nfree++] = c->slot;
    pthread_mutex_unlock(&lock);
    free(c);
    char msg[96];
    snprintf(msg, sizeof msg, "epoll_ctl failed: %s", strerror(err));
    return throw_err(env, msg);
  }
  double id = (double)c->slot + (double)c->gen * 4294967296.0;
  pthread_mutex_unlock(&lock);
  uint64_t one = 1;
  if (write(wake_fd, &one, sizeof one) < 0) { /* the loop wakes within a second anyway */ }
  napi_create_double(env, id, &out);
  return out;
}

static Conn *conn_of(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  double id;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 1 || napi_get_value_double(env, argv[0], &id) != napi_ok || id < 0) return NULL;
  uint64_t v = (uint64_t)id;
  return lookup((uint32_t)(v & 0xffffffffu), (uint32_t)(v >> 32));
}

static napi_value pair(napi_env env, uint64_t a, uint64_t b) {
  napi_value arr, x, y;
  napi_create_array_with_length(env, 2, &arr);
  napi_create_double(env, (double)a, &x);
  napi_create_double(env, (double)b, &y);
  napi_set_element(env, arr, 0, x);
  napi_set_element(env, arr, 1, y);
  return arr;
}

static napi_value js_bytes(napi_env env, napi_callback_info info) {
  napi_value out = NULL;
  pthread_mutex_lock(&lock);
  Conn *c = conn_of(env, info);
  uint64_t a = c ? c->dir[0].bytes : 0, b = c ? c->dir[1].bytes : 0;
  pthread_mutex_unlock(&lock);
  if (c) out = pair(env, a, b);
  else napi_get_null(env, &out);
  return out;
}

static napi_value js_abort(napi_env env, napi_callback_info info) {
  napi_value out = NULL;
  pthread_mutex_lock(&lock);
  Conn *c = conn_of(env, info);
  uint64_t a = 0, b = 0;
  if (c) {
    a = c->dir[0].bytes;
    b = c->dir[1].bytes;
    detach(c);
    free(c);
  }
  pthread_mutex_unlock(&lock);
  if (c) out = pair(env, a, b);
  else napi_get_null(env, &out);
  return out;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"start", NULL, js_start, NULL, NULL, NULL, napi_default, NULL},
      {"add", NULL, js_add, NULL, NULL, NULL, napi_default, NULL},
      {"bytes", NULL, js_bytes, NULL, NULL, NULL, napi_default, NULL},
      {"abort", NULL, js_abort, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  return exports;
}

NAPI_MODULE(splice_relay, init)
