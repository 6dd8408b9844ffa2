/*
 * Socket openers for what Node cannot set up itself (SO_REUSEPORT), which hand the fd to Node, and
 * an accept of a listener's whole queue in one call.
 *
 * JS API:
 *   listenTcp(ip, port, ipv6Only, backlog) -> fd  a SO_REUSEPORT listener (web serving threads, STUN)
 *   connectTcp(localIp, localPort, ip, port) -> fd  an outbound connect from a port a listener holds
 *   connectState(fd) -> 0 connected, 1 connecting, -errno failed
 *   acceptTcp(fd, max) -> [fd, ...]             what waits on a listening socket, accepted now
 */
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include <node_api.h>

#include "napiutil.h"
#include "sockets.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

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

void sockets_init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"listenTcp", NULL, js_listen_tcp, NULL, NULL, NULL, napi_default, NULL},
      {"connectTcp", NULL, js_connect_tcp, NULL, NULL, NULL, napi_default, NULL},
      {"connectState", NULL, js_connect_state, NULL, NULL, NULL, napi_default, NULL},
      {"acceptTcp", NULL, js_accept_tcp, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
}
