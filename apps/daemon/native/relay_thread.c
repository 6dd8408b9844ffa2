/*
 * The relay thread (`lucky-relay`): one epoll set (edge-triggered), each ready object run until the
 * kernel would block or its turn's budget is used, idle TCP pairs and file transfers ended. What it
 * has for Node (an object's end, a datagram without a session) goes through thread-safe functions.
 */
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include "relay.h"

#include "napiutil.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* Datagrams for Node waiting to be taken; more are dropped, as a full socket buffer would. */
#define PACKETS_QUEUED 4096
#define EVENTS 256

int relay_started = 0;
int relay_ep = -1;
static int wake_fd = -1;
napi_threadsafe_function relay_on_end, relay_on_packet;

static int64_t idle_limit(Head *h, int64_t *last) {
  if (h->kind == KIND_TCP) { *last = ((Tcp *)h)->last; return ((Tcp *)h)->idle_ms; }
  if (h->kind == KIND_FILE_SEND) { *last = ((FileSend *)h)->last; return ((FileSend *)h)->idle_ms; }
  if (h->kind == KIND_FILE_RECV) { *last = ((FileRecv *)h)->last; return ((FileRecv *)h)->idle_ms; }
  if (h->kind == KIND_PASS) { *last = ((Pass *)h)->last; return ((Pass *)h)->idle_ms; }
  return 0;
}

static void run(Head *h, int64_t now) {
  clear_again(h);
  if (h->kind == KIND_TCP) run_tcp((Tcp *)h, now);
  else if (h->kind == KIND_FILE_SEND) run_send((FileSend *)h, now);
  else if (h->kind == KIND_FILE_RECV) run_recv((FileRecv *)h, now);
  else if (h->kind == KIND_PASS) run_pass((Pass *)h, now);
  else if (h->kind == KIND_UDP_LISTENER) run_listener((UdpListener *)h, now);
  else run_session((UdpSession *)h, now);
}

static void *loop(void *arg) {
  (void)arg;
  struct epoll_event evs[EVENTS];
  int64_t last_sweep = now_ms();
  for (;;) {
    pthread_mutex_lock(&relay_lock);
    int pending = relay_n_again > 0;
    pthread_mutex_unlock(&relay_lock);
    int n = epoll_wait(relay_ep, evs, EVENTS, pending ? 0 : 1000);
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
      pthread_mutex_lock(&relay_lock);
      Head *h = lookup((uint32_t)(t & 0xffffffffu) >> 1, (uint32_t)(t >> 32));
      if (h) run(h, now);
      pthread_mutex_unlock(&relay_lock);
    }
    pthread_mutex_lock(&relay_lock);
    if (pending)
      for (uint32_t i = 0; i < relay_nslots; i++)
        if (relay_slots[i] && relay_slots[i]->again) run(relay_slots[i], now);
    /* TCP and file idle timeouts; Node sweeps UDP sessions itself (it asks for their idle time). */
    if (now - last_sweep >= 1000) {
      last_sweep = now;
      for (uint32_t i = 0; i < relay_nslots; i++) {
        int64_t last = 0, limit = relay_slots[i] ? idle_limit(relay_slots[i], &last) : 0;
        if (limit > 0 && now - last >= limit) end_object(relay_slots[i], REASON_IDLE, 0);
      }
    }
    pthread_mutex_unlock(&relay_lock);
  }
  return NULL;
}

void wake(void) {
  uint64_t one = 1;
  if (write(wake_fd, &one, sizeof one) < 0) { /* the loop wakes within a second anyway */ }
}

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

napi_value js_start(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], name;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (relay_started) return throw_err(env, "already relay_started");
  if (argc < 2) return throw_err(env, "start(onEnd, onPacket) needs two functions");
  relay_ep = epoll_create1(EPOLL_CLOEXEC);
  wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (relay_ep < 0 || wake_fd < 0) return throw_errno(env, "epoll or eventfd", errno);
  struct epoll_event ev = {.events = EPOLLIN, .data.u64 = UINT64_MAX};
  epoll_ctl(relay_ep, EPOLL_CTL_ADD, wake_fd, &ev);
  napi_create_string_utf8(env, "lucky relay", NAPI_AUTO_LENGTH, &name);
  if (napi_create_threadsafe_function(env, argv[0], NULL, name, 0, 1, NULL, NULL, NULL, call_js, &relay_on_end) != napi_ok ||
      napi_create_threadsafe_function(env, argv[1], NULL, name, PACKETS_QUEUED, 1, NULL, NULL, NULL, call_js, &relay_on_packet) != napi_ok)
    return throw_err(env, "cannot create the callbacks");
  /* The thread must not keep the event loop alive by itself. */
  napi_unref_threadsafe_function(env, relay_on_end);
  napi_unref_threadsafe_function(env, relay_on_packet);
  pthread_t thread;
  if (pthread_create(&thread, NULL, loop, NULL) != 0) return throw_err(env, "cannot start the relay thread");
  /* Named, so that top -H and /proc/<pid>/task tell its CPU time from the event loop's. */
  pthread_setname_np(thread, "lucky-relay");
  pthread_detach(thread);
  relay_started = 1;
  return NULL;
}
