/*
 * The way to a rule's Node server: a socketpair per connection, whose other end is handed to
 * JavaScript, which makes it a connection of the rule's HTTP server (web.edge.ts). No address, no
 * port, no file: nothing else can connect to that server, so the client address our requests carry
 * in `lucky-edge` can be believed there.
 */
#include "edge.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

int fallback_connect(Worker *w, Rule *r) {
  (void)w;
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0) return -errno;
  /* Requests written before Node adopts its end wait in the socket. */
  if (edge_emit_adopt(r, sv[1]) < 0) {
    close(sv[0]);
    close(sv[1]);
    return -ECONNREFUSED;
  }
  return sv[0];
}
