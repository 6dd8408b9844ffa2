/*
 * After a 101 (a websocket, or any upgrade the backend accepted): bytes both ways, untouched, each
 * side's end of stream passed on as a half-close, until both ended or either broke. The rule's
 * websocket idle timeout closes a tunnel with no byte either way for that long.
 */
#include "edge.h"
#include "exchange.h"
#include "out.h"
#include "tls.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

void tunnel_close(Client *c) { client_close(c); }

/* Sends buf[*off, len) to the backend: 1 progress, 0 would block, -1 broken. */
static int send_some(int fd, const char *buf, uint32_t *off, uint32_t len, int *writable, uint64_t *count) {
  if (*off >= len || !*writable) return 0;
  ssize_t n = send(fd, buf + *off, len - *off, MSG_NOSIGNAL);
  if (n < 0) {
    if (errno == EAGAIN || errno == EINTR) {
      if (errno == EAGAIN) *writable = 0;
      return 0;
    }
    return -1;
  }
  *off += (uint32_t)n;
  if (count) *count += (uint64_t)n;
  if (*off < len) *writable = 0;
  return 1;
}

int tunnel_fill(Upstream *u) {
  if (!u->buf) u->buf = malloc(EDGE_BUF);
  if (!u->buf) return -2;
  u->off = u->len = 0;
  for (;;) {
    ssize_t n = recv(u->fd, u->buf, EDGE_BUF, 0);
    if (n > 0) {
      u->len = (uint32_t)n;
      if (n < EDGE_BUF && !u->rdhup) u->readable = 0;
      return (int)n;
    }
    if (n == 0) {
      u->eof = 1;
      return 0;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN) {
      u->readable = 0;
      return -1;
    }
    return -2;
  }
}

void tunnel_step(Client *c) {
  /* A stream's tunnel is its connection's to run (h2.c). */
  if (c->h2_parent) {
    client_again(c);
    return;
  }
  Upstream *u = c->x.up;
  if (!u) {
    client_close(c);
    return;
  }
  int moved = 0;
  for (int turns = 0; turns < 16; turns++) {
    int progress = 0;
    /* Our 101 first. */
    int r = client_flush(c);
    if (r < 0) goto broken;
    if (r == 0) break;
    /* Client to backend. */
    r = send_some(u->fd, c->buf, &c->off, c->len, &u->writable, NULL);
    if (c->off >= c->len) c->off = c->len = 0;
    if (r < 0) goto broken;
    progress |= r;
    if (c->off >= c->len && !c->tunnel_eof && c->readable) {
      int n = client_read(c);
      if (n > 0) progress = 1;
      else if (n == 0) {
        c->tunnel_eof = 1;
        shutdown(u->fd, SHUT_WR);
      } else if (n == -2) goto broken;
    }
    /* Backend to client, through client_flush (TLS or not). */
    if (u->off < u->len) {
      c->span = u->buf + u->off;
      c->span_len = u->len - u->off;
      r = client_flush(c);
      if (r < 0) goto broken;
      uint32_t left = c->span_len;
      c->span = NULL;
      c->span_len = 0;
      if (u->len - left > u->off) progress = 1;
      u->off = u->len - left;
      if (r == 0) {
        moved |= progress;
        break;
      }
    }
    if (u->off >= u->len && !u->eof && u->readable) {
      int n = tunnel_fill(u);
      if (n == -2) goto broken;
      if (n >= 0) progress = 1;
    }
    moved |= progress;
    if (!progress) break;
    if (turns == 15) client_again(c);
  }
  /* The backend's end goes on once everything before it is out (a TLS client gets close_notify). */
  if (u->eof && !c->tunnel_down_done && u->off >= u->len && c->out_off == c->out_len && !tls_pending_out(c)) {
    c->tunnel_down_done = 1;
    tls_bye(c);
    shutdown(c->fd, SHUT_WR);
  }
  if (c->tunnel_eof && c->tunnel_down_done && c->off >= c->len) {
    client_close(c);
    return;
  }
  if (moved && c->tunnel_idle_ms) c->deadline = c->w->now + c->tunnel_idle_ms;
  return;
broken:
  client_close(c);
}
