/*
 * The edge's threads: each waits on its own epoll set (edge-triggered) and serves the clients it
 * accepted from every rule's listening socket (shared by the threads, EPOLLEXCLUSIVE: one thread is
 * woken per connection). JavaScript talks to a thread only through commands (add a rule, swap its
 * table, remove it, stop), queued under a mutex and announced on an eventfd.
 */
#include "edge.h"
#include "exchange.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#define EVENTS 512
/* Timeouts are checked this often. */
#define SWEEP_MS 250

int edge_workers = 0;
Worker edge_w[EDGE_MAX_WORKERS];

typedef struct Dead {
  struct Dead *next;
  void *obj;
  void (*fn)(void *);
} Dead;

int64_t edge_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t edge_now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void worker_post(Worker *w, Cmd *c) {
  c->next = NULL;
  pthread_mutex_lock(&w->lock);
  Cmd **tail = &w->cmds;
  while (*tail) tail = &(*tail)->next;
  *tail = c;
  pthread_mutex_unlock(&w->lock);
  uint64_t one = 1;
  ssize_t n = write(w->wake_fd, &one, sizeof one);
  (void)n;
}

/* An object closed during this turn may still have events queued in it: it is freed after them. */
void worker_defer_free(Worker *w, void *obj, void (*fn)(void *)) {
  Dead *d = malloc(sizeof *d);
  if (!d) {
    fn(obj);
    return;
  }
  d->obj = obj;
  d->fn = fn;
  d->next = w->dead;
  w->dead = d;
}

static void free_dead(Worker *w) {
  Dead *d = w->dead;
  w->dead = NULL;
  while (d) {
    Dead *next = d->next;
    d->fn(d->obj);
    free(d);
    d = next;
  }
}

const char *worker_date(Worker *w, uint32_t *len) {
  time_t now = time(NULL);
  if (now != w->date_sec) {
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(w->date, sizeof w->date, "Date: %a, %d %b %Y %H:%M:%S GMT\r\n", &tm);
    w->date_sec = now;
  }
  *len = (uint32_t)strlen(w->date);
  return w->date;
}

static void rule_done_here(Worker *w, Rule *r) {
  (void)w;
  if (__atomic_add_fetch(&r->workers_done, 1, __ATOMIC_ACQ_REL) == edge_workers) edge_emit_removed(r);
}

/* Has this thread finished with a rule being removed? Its clients and its Node connections are gone. */
static void check_removed(Worker *w) {
  for (Cmd **p = &w->removing; *p;) {
    Cmd *c = *p;
    int busy = 0;
    for (Client *k = w->clients; k; k = k->next)
      if (k->rule == c->rule) busy = 1;
    if (!busy) {
      /* No client left: its Node connections idle in the pool and close with it. */
      upstream_close_idle(w, c->rule);
      if (c->rule->tables[w->index]) table_unref(c->rule->tables[w->index]);
      c->rule->tables[w->index] = NULL;
      *p = c->next;
      rule_done_here(w, c->rule);
      free(c);
    } else {
      if (w->now >= c->rule->grace_until) client_drop_rule(w, c->rule, 1);
      p = &c->next;
    }
  }
}

static void run_cmds(Worker *w) {
  uint64_t v;
  ssize_t n = read(w->wake_fd, &v, sizeof v);
  (void)n;
  pthread_mutex_lock(&w->lock);
  Cmd *c = w->cmds;
  w->cmds = NULL;
  pthread_mutex_unlock(&w->lock);
  while (c) {
    Cmd *next = c->next;
    Rule *r = c->rule;
    switch (c->op) {
      case CMD_ADD: {
        r->tables[w->index] = c->table; /* the reference was taken for this thread */
        struct epoll_event ev = {.events = EPOLLIN | EPOLLEXCLUSIVE, .data.ptr = &r->ev};
        if (epoll_ctl(w->ep, EPOLL_CTL_ADD, r->fd, &ev) < 0) perror("lucky edge: epoll_ctl listener");
        free(c);
        break;
      }
      case CMD_SWAP: {
        Table *old = r->tables[w->index];
        r->tables[w->index] = c->table;
        if (old) table_unref(old);
        free(c);
        break;
      }
      case CMD_REMOVE:
        epoll_ctl(w->ep, EPOLL_CTL_DEL, r->fd, NULL);
        for (int i = 0; i < 8; i++)
          if (w->paused[i] == r) w->paused[i] = NULL;
        /* Idle clients go now; busy ones after their answer, cut when the grace ends. */
        client_drop_rule(w, r, 0);
        c->next = w->removing;
        w->removing = c;
        check_removed(w);
        break;
      case CMD_STOP:
        w->stopping = 1;
        free(c);
        break;
      default:
        free(c);
    }
    c = next;
  }
}

void worker_pause_accept(Worker *w, Rule *r) {
  for (int i = 0; i < 8; i++) {
    if (w->paused[i]) continue;
    if (epoll_ctl(w->ep, EPOLL_CTL_DEL, r->fd, NULL) == 0) {
      w->paused[i] = r;
      w->paused_until[i] = w->now + 500;
    }
    return;
  }
}

static void resume_accept(Worker *w) {
  for (int i = 0; i < 8; i++) {
    Rule *r = w->paused[i];
    if (!r || (w->paused_until[i] > w->now && !r->removing)) continue;
    w->paused[i] = NULL;
    if (r->removing) continue;
    struct epoll_event ev = {.events = EPOLLIN | EPOLLEXCLUSIVE, .data.ptr = &r->ev};
    epoll_ctl(w->ep, EPOLL_CTL_ADD, r->fd, &ev);
  }
}

static void sweep(Worker *w) {
  w->next_sweep = w->now + SWEEP_MS;
  resume_accept(w);
  for (Client *c = w->clients, *next; c; c = next) {
    next = c->next;
    if (c->deadline && c->deadline <= w->now) client_timeout(c);
  }
  for (Upstream *u = w->upstreams, *next; u; u = next) {
    next = u->next;
    if (u->deadline && u->deadline <= w->now) upstream_timeout(u);
  }
  if (w->removing) check_removed(w);
}

static void *worker_main(void *arg) {
  Worker *w = arg;
  struct epoll_event *evs = malloc(sizeof *evs * EVENTS);
  w->now = edge_now_ms();
  w->next_sweep = w->now + SWEEP_MS;
  while (!w->stopping) {
    int wait = (int)(w->next_sweep - w->now);
    if (wait < 0) wait = 0;
    int n = epoll_wait(w->ep, evs, EVENTS, wait);
    w->now = edge_now_ms();
    for (int i = 0; i < n; i++) {
      Ev *e = evs[i].data.ptr;
      switch (e->kind) {
        case EV_WAKE:
          run_cmds(w);
          break;
        case EV_LISTEN:
          client_accept(w, (Rule *)e);
          break;
        case EV_CLIENT:
          client_event((Client *)e, evs[i].events);
          break;
        case EV_UPSTREAM:
          upstream_event((Upstream *)e, evs[i].events);
          break;
      }
    }
    client_run_again(w);
    free_dead(w);
    if (w->now >= w->next_sweep) {
      sweep(w);
      free_dead(w);
    }
  }
  free(evs);
  return NULL;
}

int worker_start(Worker *w, int index) {
  memset(w, 0, sizeof *w);
  w->index = index;
  w->wake_ev.kind = EV_WAKE;
  w->ep = epoll_create1(EPOLL_CLOEXEC);
  w->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  w->scratch = malloc(EDGE_SCRATCH);
  if (w->ep < 0 || w->wake_fd < 0 || !w->scratch) return -1;
  pthread_mutex_init(&w->lock, NULL);
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &w->wake_ev};
  if (epoll_ctl(w->ep, EPOLL_CTL_ADD, w->wake_fd, &ev) < 0) return -1;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  /* The loop needs little stack: heads are built in `scratch`, parsed heads live in the Worker. */
  pthread_attr_setstacksize(&attr, 256 * 1024);
  int rc = pthread_create(&w->tid, &attr, worker_main, w);
  pthread_attr_destroy(&attr);
  if (rc) return -1;
  char name[16];
  snprintf(name, sizeof name, "lucky-edge-%d", index);
  pthread_setname_np(w->tid, name);
  return 0;
}

void worker_join(Worker *w) {
  Cmd *c = calloc(1, sizeof *c);
  c->op = CMD_STOP;
  worker_post(w, c);
  pthread_join(w->tid, NULL);
  /* Whatever is left (no rule is, by now) is closed with the thread. */
  while (w->clients) client_close(w->clients);
  while (w->upstreams) upstream_abort(w->upstreams);
  free_dead(w);
  upstream_free_pools(w);
  close(w->ep);
  close(w->wake_fd);
  free(w->scratch);
  pthread_mutex_destroy(&w->lock);
}
