/*
 * Socket passes: a body of known length from one socket to another, one way (a remote storage's
 * answer on its way to our client). Unlike a TCP pair nothing goes back and no FIN is passed on:
 * both connections go on with Node afterwards (the client's keep-alive, or a close). Both
 * descriptors are the relay's own duplicates, closed when it ends.
 *
 * The bytes go through a buffer of the pass's own with read(2) and write(2), not splice(2): a
 * splice hands the client's socket the fragments the source's packets came in, and the client's
 * side then pays for each. With the client and the remote sharing a core (bench/remotestorage), a
 * splice cost that core 1.3 s/GB against 1.1 with the copy, and 15-25 % of the throughput; the copy
 * costs this thread about 0.3 s/GB more, on a core that had room.
 */
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include "relay.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

/* Writability of the destination is asked for only while bytes wait for it (as a TCP pair does). */
int watch_pass(Pass *p, int side, int op, int out) {
  struct epoll_event ev = {.events = side == 0 ? (EPOLLIN | EPOLLRDHUP | EPOLLET) : (EPOLLET | (out ? EPOLLOUT : 0)), .data.u64 = tag(&p->h, side)};
  return epoll_ctl(relay_ep, op, side == 0 ? p->src : p->dst, &ev);
}

static int arm(Pass *p, int want) {
  if (want == p->out_armed) return 0;
  p->out_armed = want;
  if (watch_pass(p, 1, EPOLL_CTL_MOD, want) == 0) return 0;
  end_object(&p->h, REASON_ERROR, errno);
  return -1;
}

void run_pass(Pass *p, int64_t now) {
  size_t budget = TURN_BYTES;
  for (;;) {
    if (p->held > p->sent) {
      ssize_t w = write(p->dst, p->buf + p->sent, p->held - p->sent);
      if (w > 0) {
        p->sent += (size_t)w;
        p->bytes += (uint64_t)w;
        p->last = now;
        continue;
      }
      if (w < 0 && errno == EINTR) continue;
      if (w < 0 && errno == EAGAIN) {
        arm(p, 1);
        return;
      }
      end_object(&p->h, REASON_ERROR, w < 0 ? errno : EPIPE);
      return;
    }
    p->held = p->sent = 0;
    /* All of it went, or the source ended early: Node compares the bytes moved with the length. */
    if (p->left == 0 || p->eof) {
      end_object(&p->h, REASON_DONE, 0);
      return;
    }
    if (budget == 0) {
      set_again(&p->h);
      return;
    }
    if (!p->buf && !(p->buf = malloc(PASS_BUFFER))) {
      end_object(&p->h, REASON_ERROR, ENOMEM);
      return;
    }
    /* Never more than the body: what follows it on the source is not ours to move. */
    size_t want = p->left < PASS_BUFFER ? (size_t)p->left : PASS_BUFFER;
    ssize_t r = read(p->src, p->buf, want);
    if (r > 0) {
      p->held = (size_t)r;
      p->left -= (uint64_t)r;
      budget = (size_t)r >= budget ? 0 : budget - (size_t)r;
      p->last = now;
      continue;
    }
    if (r == 0) {
      p->eof = 1;
      continue;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN) {
      arm(p, 0);
      return;
    }
    end_object(&p->h, REASON_ERROR, errno);
    return;
  }
}
