/*
 * The relay's objects (TCP pairs, UDP listeners and sessions, file transfers) in one table: an
 * object's id is its slot and a generation, so that an id Node still holds never reaches an object
 * that took the slot later. UDP sessions are also found by client address, for the datagrams of
 * their listener. Ending an object reports it to Node and gives its slot back.
 */
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include "relay.h"

#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#define BUCKETS 16384

pthread_mutex_t relay_lock = PTHREAD_MUTEX_INITIALIZER;
Head **relay_slots = NULL;
uint32_t relay_nslots = 0;
uint32_t relay_n_again = 0;
static uint32_t *gens = NULL;
static uint32_t *free_slots = NULL;
static uint32_t nfree = 0;
static UdpSession *buckets[BUCKETS];

int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

double id_of(Head *h) { return (double)h->slot + (double)h->gen * 4294967296.0; }
uint64_t tag(Head *h, int side) { return ((uint64_t)h->gen << 32) | ((uint64_t)h->slot << 1) | (uint64_t)side; }

Head *lookup(uint32_t slot, uint32_t gen) {
  if (slot >= relay_nslots) return NULL;
  Head *h = relay_slots[slot];
  return h && h->gen == gen ? h : NULL;
}

void set_again(Head *h) {
  if (!h->again) relay_n_again++;
  h->again = 1;
}

void clear_again(Head *h) {
  if (h->again) relay_n_again--;
  h->again = 0;
}

void post(napi_threadsafe_function fn, Event *e) {
  if (napi_call_threadsafe_function(fn, e, napi_tsfn_nonblocking) != napi_ok) free(e);
}

/* Called with the lock held. */
int grow(void) {
  if (nfree > 0) return 0;
  uint32_t n = relay_nslots ? relay_nslots * 2 : 1024;
  Head **s = realloc(relay_slots, n * sizeof *s);
  if (!s) return -1;
  relay_slots = s;
  uint32_t *g = realloc(gens, n * sizeof *g);
  if (!g) return -1;
  gens = g;
  uint32_t *f = realloc(free_slots, n * sizeof *f);
  if (!f) return -1;
  free_slots = f;
  for (uint32_t i = n; i > relay_nslots; i--) {
    relay_slots[i - 1] = NULL;
    gens[i - 1] = 0;
    free_slots[nfree++] = i - 1;
  }
  relay_nslots = n;
  return 0;
}

/* ------------------------------------------------------------------ UDP sessions by client */

static uint32_t hash_addr(uint32_t listener_slot, const struct sockaddr_storage *a) {
  uint32_t h = 2166136261u ^ listener_slot;
  const unsigned char *p;
  size_t n;
  if (a->ss_family == AF_INET) {
    const struct sockaddr_in *s = (const void *)a;
    p = (const void *)&s->sin_addr;
    n = 4;
    h = (h ^ s->sin_port) * 16777619u;
  } else {
    const struct sockaddr_in6 *s = (const void *)a;
    p = (const void *)&s->sin6_addr;
    n = 16;
    h = (h ^ s->sin6_port) * 16777619u;
  }
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
  return h % BUCKETS;
}

static int same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b) {
  if (a->ss_family != b->ss_family) return 0;
  if (a->ss_family == AF_INET) {
    const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;
    return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
  }
  const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;
  return x->sin6_port == y->sin6_port && memcmp(&x->sin6_addr, &y->sin6_addr, 16) == 0;
}

UdpSession *find_session(UdpListener *l, const struct sockaddr_storage *a) {
  for (UdpSession *s = buckets[hash_addr(l->h.slot, a)]; s; s = s->next)
    if (s->listener_slot == l->h.slot && s->listener_gen == l->h.gen && same_addr(&s->client, a)) return s;
  return NULL;
}

static void unlink_session(UdpSession *s) {
  UdpSession **p = &buckets[hash_addr(s->listener_slot, &s->client)];
  while (*p && *p != s) p = &(*p)->next;
  if (*p) *p = s->next;
}

void link_session(UdpSession *s) {
  uint32_t b = hash_addr(s->listener_slot, &s->client);
  s->next = buckets[b];
  buckets[b] = s;
}

/* ------------------------------------------------------------------ objects */

void take_slot(Head *h, int kind) {
  h->kind = kind;
  h->slot = free_slots[--nfree];
  h->gen = ++gens[h->slot] & 0x1fffff; /* ids stay below 2^53 as JS numbers */
  if (h->gen == 0) h->gen = gens[h->slot] = 1;
  relay_slots[h->slot] = h;
}

/* The slot goes back to the free list and the object is freed (its descriptors stay Node's). */
void give_slot(Head *h) {
  clear_again(h);
  relay_slots[h->slot] = NULL;
  free_slots[nfree++] = h->slot;
  free(h);
}

/* Out of the epoll set and the table, and freed; the descriptors stay open (Node owns them). */
void drop(Head *h) {
  if (h->kind == KIND_TCP) {
    Tcp *c = (Tcp *)h;
    epoll_ctl(relay_ep, EPOLL_CTL_DEL, c->fd[0], NULL);
    epoll_ctl(relay_ep, EPOLL_CTL_DEL, c->fd[1], NULL);
    give_pipe(&c->dir[0]);
    give_pipe(&c->dir[1]);
  } else if (h->kind == KIND_UDP_LISTENER) {
    epoll_ctl(relay_ep, EPOLL_CTL_DEL, ((UdpListener *)h)->fd, NULL);
  } else if (h->kind == KIND_FILE_SEND) {
    FileSend *f = (FileSend *)h;
    epoll_ctl(relay_ep, EPOLL_CTL_DEL, f->sock, NULL);
    if (f->keep_open) close(f->sock);
  } else if (h->kind == KIND_FILE_RECV) {
    FileRecv *f = (FileRecv *)h;
    epoll_ctl(relay_ep, EPOLL_CTL_DEL, f->sock, NULL);
    give_pipe(&f->d); /* bytes still in it (limit reached, removed) are discarded with it */
  } else if (h->kind == KIND_PASS) {
    Pass *p = (Pass *)h;
    epoll_ctl(relay_ep, EPOLL_CTL_DEL, p->src, NULL);
    epoll_ctl(relay_ep, EPOLL_CTL_DEL, p->dst, NULL);
    free(p->buf);
    close(p->src);
    close(p->dst);
  } else {
    UdpSession *s = (UdpSession *)h;
    epoll_ctl(relay_ep, EPOLL_CTL_DEL, s->fd, NULL);
    unlink_session(s);
  }
  give_slot(h);
}

void counters(Head *h, uint64_t *a, uint64_t *b, int64_t *idle) {
  int64_t now = now_ms();
  if (h->kind == KIND_TCP) {
    Tcp *c = (Tcp *)h;
    *a = c->dir[0].bytes;
    *b = c->dir[1].bytes;
    *idle = now - c->last;
  } else if (h->kind == KIND_UDP_SESSION) {
    UdpSession *s = (UdpSession *)h;
    *a = s->bytes_in;
    *b = s->bytes_out;
    *idle = now - s->last;
  } else if (h->kind == KIND_FILE_SEND) {
    FileSend *f = (FileSend *)h;
    *a = 0;
    *b = f->bytes;
    *idle = now - f->last;
  } else if (h->kind == KIND_FILE_RECV) {
    FileRecv *f = (FileRecv *)h;
    *a = f->d.bytes;
    *b = 0;
    *idle = now - f->last;
  } else if (h->kind == KIND_PASS) {
    Pass *p = (Pass *)h;
    *a = 0;
    *b = p->bytes;
    *idle = now - p->last;
  } else {
    *a = *b = 0;
    *idle = 0;
  }
}

/* Reports the end to Node, then drops the object. */
void end_object(Head *h, int reason, int err) {
  Event *e = calloc(1, sizeof(Event));
  if (e) {
    int64_t idle;
    e->slot = h->slot;
    e->gen = h->gen;
    e->reason = reason;
    e->err = err;
    counters(h, &e->a, &e->b, &idle);
  }
  drop(h);
  if (e) post(relay_on_end, e);
}
