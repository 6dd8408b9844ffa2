/*
 * Native relay for the port forwarding engine (Linux): the data path only. Node keeps deciding
 * (limits, filters, targets, logs) and keeps owning every descriptor; the relay never opens or
 * closes a socket, it moves bytes between sockets Node hands over and reports back. This file is
 * its JS API; the work is in relay_tcp.c (TCP pairs by splice(2)), relay_udp.c (datagrams by
 * recvmmsg/sendmmsg and GSO), relay_filemove.c (files by sendfile(2) and splice(2): the FTP data path,
 * HTTP file bodies; an HTTP body, keepOpen, goes out on the relay's own duplicate of a socket Node
 * goes on using), relay_pass.c (a body of known length from one socket to another: a remote storage's
 * answer to our client), relay_thread.c (the one thread and its epoll set), relay_table.c (the objects by
 * id) and relay_pipes.c. Beside it in the same addon: the socket openers of sockets.c for what Node
 * cannot set up itself (SO_REUSEPORT), the file reads of files.c, and serving.c.
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
 *   pass(srcFd, dstFd, length, idleMs) -> id   `length` bytes from one socket to another (relay_pass.c:
 *                                               a remote storage's body to our client), on duplicates of both;
 *                                               counted in b; ends done at `length` or at the source's EOF
 *   counters(id) -> [a, b, idleMs] | null        a/b: client→target / target→client bytes
 *                                               (a file receive counts in a, a file send in b)
 *   remove(id) -> [a, b] | null                 take an object back at once (no onEnd follows)
 * reason: 0 both sides finished (a file: sent to its end / EOF received and written), 1 error (errno
 * set), 2 idle timeout, 3 a file receive got more than its limit (the bytes past it are not written).
 * and listenTcp, connectTcp, connectState, acceptTcp (sockets.c), readBeneath, writeBeneath (files.c),
 * dupFd, trimHeap (serving.c), which share this addon.
 */
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include "relay.h"

#include "files.h"
#include "napiutil.h"
#include "serving.h"
#include "sockets.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

static Head *object_of(napi_env env, napi_value v) {
  double id;
  if (napi_get_value_double(env, v, &id) != napi_ok || id < 0) return NULL;
  uint64_t u = (uint64_t)id;
  return lookup((uint32_t)(u & 0xffffffffu), (uint32_t)(u >> 32));
}

static napi_value js_tcp_add(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  int64_t fa, fb, idle;
  if (!relay_started) return throw_err(env, "not relay_started");
  if (!args(env, info, 3, argv) || !get_int(env, argv[0], &fa) || !get_int(env, argv[1], &fb) || !get_int(env, argv[2], &idle) || fa < 0 || fb < 0)
    return throw_err(env, "tcpAdd(fdA, fdB, idleMs) needs two descriptors and a number");
  Tcp *c = calloc(1, sizeof(Tcp));
  if (!c) return throw_err(env, "out of memory");
  pthread_mutex_lock(&relay_lock);
  if (grow() < 0) {
    pthread_mutex_unlock(&relay_lock);
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
    epoll_ctl(relay_ep, EPOLL_CTL_DEL, c->fd[0], NULL);
  }
  double id = id_of(&c->h);
  if (err) give_slot(&c->h);
  pthread_mutex_unlock(&relay_lock);
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
  if (!relay_started) return throw_err(env, "not relay_started");
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
  pthread_mutex_lock(&relay_lock);
  if (grow() < 0) {
    pthread_mutex_unlock(&relay_lock);
    if (own) close(watched);
    free(h);
    return throw_err(env, "out of memory");
  }
  take_slot(h, kind);
  set_again(h); /* the socket may already be writable / have bytes waiting: no edge would come */
  ev.data.u64 = tag(h, 0);
  int err = epoll_ctl(relay_ep, EPOLL_CTL_ADD, watched, &ev) < 0 ? errno : 0;
  double id = id_of(h);
  if (err) {
    if (own) close(watched);
    give_slot(h);
  }
  pthread_mutex_unlock(&relay_lock);
  if (err) return throw_errno(env, "epoll_ctl", err);
  wake();
  return number(env, id);
}

/* pass(srcFd, dstFd, length, idleMs): on duplicates of both, so Node may close its own at any moment. */
static napi_value js_pass(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  int64_t src, dst, length, idle;
  if (!relay_started) return throw_err(env, "not relay_started");
  if (!args(env, info, 4, argv) || !get_int(env, argv[0], &src) || !get_int(env, argv[1], &dst) || !get_int(env, argv[2], &length) ||
      !get_int(env, argv[3], &idle) || src < 0 || dst < 0 || length < 0)
    return throw_err(env, "pass(srcFd, dstFd, length, idleMs) needs two descriptors and two numbers");
  Pass *p = calloc(1, sizeof(Pass));
  if (!p) return throw_err(env, "out of memory");
  int a = fcntl((int)src, F_DUPFD_CLOEXEC, 0);
  int b = a < 0 ? -1 : fcntl((int)dst, F_DUPFD_CLOEXEC, 0);
  if (b < 0) {
    int e = errno;
    if (a >= 0) close(a);
    free(p);
    return throw_errno(env, "dup", e);
  }
  p->src = a;
  p->dst = b;
  p->left = (uint64_t)length;
  p->idle_ms = idle;
  p->last = now_ms();
  pthread_mutex_lock(&relay_lock);
  if (grow() < 0) {
    pthread_mutex_unlock(&relay_lock);
    close(a);
    close(b);
    free(p);
    return throw_err(env, "out of memory");
  }
  take_slot(&p->h, KIND_PASS);
  set_again(&p->h); /* bytes may already wait on the source: no edge would come */
  int err = 0;
  if (watch_pass(p, 0, EPOLL_CTL_ADD, 0) < 0) err = errno;
  else if (watch_pass(p, 1, EPOLL_CTL_ADD, 0) < 0) {
    err = errno;
    epoll_ctl(relay_ep, EPOLL_CTL_DEL, a, NULL);
  }
  double id = id_of(&p->h);
  if (err) {
    close(a);
    close(b);
    give_slot(&p->h);
  }
  pthread_mutex_unlock(&relay_lock);
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
  if (!relay_started) return throw_err(env, "not relay_started");
  if (!args(env, info, 2, argv) || !get_int(env, argv[0], &fd) || !get_int(env, argv[1], &max) || fd < 0)
    return throw_err(env, "udpListen(fd, maxPacket) needs a descriptor and a number");
  UdpListener *l = calloc(1, sizeof(UdpListener));
  if (!l) return throw_err(env, "out of memory");
  pthread_mutex_lock(&relay_lock);
  if (grow() < 0) {
    pthread_mutex_unlock(&relay_lock);
    free(l);
    return throw_err(env, "out of memory");
  }
  take_slot(&l->h, KIND_UDP_LISTENER);
  l->fd = (int)fd;
  l->max_packet = (uint32_t)max;
  roomy(l->fd);
  set_again(&l->h); /* datagrams may already wait */
  struct epoll_event ev = {.events = EPOLLIN | EPOLLET, .data.u64 = tag(&l->h, 0)};
  int err = epoll_ctl(relay_ep, EPOLL_CTL_ADD, l->fd, &ev) < 0 ? errno : 0;
  double id = id_of(&l->h);
  if (err) give_slot(&l->h);
  pthread_mutex_unlock(&relay_lock);
  if (err) return throw_errno(env, "epoll_ctl", err);
  wake();
  return number(env, id);
}

static napi_value js_udp_set_max(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  int64_t max;
  if (!args(env, info, 2, argv) || !get_int(env, argv[1], &max)) return throw_err(env, "udpSetMax(id, maxPacket)");
  pthread_mutex_lock(&relay_lock);
  Head *h = object_of(env, argv[0]);
  if (h && h->kind == KIND_UDP_LISTENER) ((UdpListener *)h)->max_packet = (uint32_t)max;
  pthread_mutex_unlock(&relay_lock);
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
  if (!relay_started) return throw_err(env, "not relay_started");
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
  pthread_mutex_lock(&relay_lock);
  Head *l = object_of(env, argv[0]);
  if (!l || l->kind != KIND_UDP_LISTENER || grow() < 0) {
    pthread_mutex_unlock(&relay_lock);
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
  int err = epoll_ctl(relay_ep, EPOLL_CTL_ADD, s->fd, &ev) < 0 ? errno : 0;
  double id = id_of(&s->h);
  if (err) give_slot(&s->h);
  else link_session(s);
  pthread_mutex_unlock(&relay_lock);
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
  pthread_mutex_lock(&relay_lock);
  Head *h = object_of(env, argv[0]);
  if (h) counters(h, &a, &b, &idle);
  pthread_mutex_unlock(&relay_lock);
  if (h) return triple(env, a, b, idle, 1);
  napi_get_null(env, &out);
  return out;
}

static napi_value js_remove(napi_env env, napi_callback_info info) {
  napi_value argv[1], out;
  if (!args(env, info, 1, argv)) return throw_err(env, "remove(id)");
  uint64_t a = 0, b = 0;
  int64_t idle = 0;
  pthread_mutex_lock(&relay_lock);
  Head *h = object_of(env, argv[0]);
  if (h) {
    counters(h, &a, &b, &idle);
    if (h->kind == KIND_UDP_LISTENER) {
      /* Its sessions cannot outlive it. */
      for (uint32_t i = 0; i < relay_nslots; i++) {
        UdpSession *s = (UdpSession *)relay_slots[i];
        if (s && s->h.kind == KIND_UDP_SESSION && s->listener_slot == h->slot && s->listener_gen == h->gen) drop(&s->h);
      }
    }
    drop(h);
  }
  pthread_mutex_unlock(&relay_lock);
  if (h) return triple(env, a, b, 0, 0);
  napi_get_null(env, &out);
  return out;
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
      {"pass", NULL, js_pass, NULL, NULL, NULL, napi_default, NULL},
      {"counters", NULL, js_counters, NULL, NULL, NULL, napi_default, NULL},
      {"remove", NULL, js_remove, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  sockets_init(env, exports);
  files_init(env, exports);
  serving_init(env, exports);
  return exports;
}

NAPI_MODULE(relay, init)
