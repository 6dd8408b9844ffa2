/*
 * The kernel pipes splice(2) moves bytes through (TCP pairs, file receives). A pipe is held only
 * while bytes wait in it; an empty one goes back to a small pool instead of being closed.
 */
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include "relay.h"

#include <fcntl.h>
#include <unistd.h>

/* Idle pipes kept for reuse; a pipe is held only while bytes wait in it. */
#define PIPES_KEPT 32

static int pipes[PIPES_KEPT][2];
static int npipes = 0;

int take_pipe(Dir *d) {
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
void give_pipe(Dir *d) {
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

