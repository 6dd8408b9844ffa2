/*
 * TCP pairs: splice(2) moves bytes from one socket to the other through a kernel pipe, so they
 * never enter user space; each side's FIN is passed on as a half-close.
 */
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include "relay.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/socket.h>

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
int watch_tcp(Tcp *c, int side, int op, int out) {
  struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | EPOLLET | (out ? EPOLLOUT : 0), .data.u64 = tag(&c->h, side)};
  return epoll_ctl(relay_ep, op, c->fd[side], &ev);
}

void run_tcp(Tcp *c, int64_t now) {
  for (int i = 0; i < 2; i++) {
    int err = pump(c, &c->dir[i], now);
    if (err) { end_object(&c->h, REASON_ERROR, err); return; }
  }
  if (c->dir[0].done && c->dir[1].done) { end_object(&c->h, REASON_DONE, 0); return; }
  /* dir[0] writes to fd[1], dir[1] to fd[0]. */
  for (int side = 0; side < 2; side++) {
    Dir *w = &c->dir[1 - side];
    int want = w->in_pipe > 0 && !w->done;
    if (want != c->out_armed[side]) {
      c->out_armed[side] = want;
      if (watch_tcp(c, side, EPOLL_CTL_MOD, want) < 0) { end_object(&c->h, REASON_ERROR, errno); return; }
    }
  }
}
