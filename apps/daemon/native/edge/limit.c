/*
 * Limits per client address (limit.h). The addresses followed live in a fixed table split into
 * stripes, each with its own lock, so threads seldom wait on one another; an address is looked for
 * in a short run of its stripe, and a new one takes an empty place or the one quiet longest that
 * holds no connection. The table never grows: a flood of addresses costs no memory, it only makes
 * the quietest ones forgotten (they start again with a full bucket).
 */
#include "limit.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define STRIPES 16
#define PER_STRIPE 256
#define PROBE 8

typedef struct {
  uint8_t addr[16];
  uint8_t family; /* 0: empty */
  int32_t conns;
  int64_t tokens; /* millionths; -1: not measured yet (a full bucket) */
  int64_t at_ms;
} Slot;

typedef struct {
  pthread_mutex_t lock;
  Slot slot[PER_STRIPE];
} Stripe;

struct Limiter {
  Stripe stripe[STRIPES];
};

Limiter *limit_new(void) {
  Limiter *l = calloc(1, sizeof *l);
  if (!l) return NULL;
  for (int i = 0; i < STRIPES; i++) pthread_mutex_init(&l->stripe[i].lock, NULL);
  return l;
}

void limit_free(Limiter *l) {
  if (!l) return;
  for (int i = 0; i < STRIPES; i++) pthread_mutex_destroy(&l->stripe[i].lock);
  free(l);
}

static uint32_t hash_of(const uint8_t *addr, int len) {
  uint32_t h = 2166136261u;
  for (int i = 0; i < len; i++) h = (h ^ addr[i]) * 16777619u;
  return h;
}

static int addr_len(int family) { return family == 4 ? 4 : 16; }

/* The address's slot in its (locked) stripe; NULL when not followed and `add` is 0. */
static Slot *find(Stripe *s, uint32_t h, const uint8_t *addr, int family, int add, int64_t now_ms) {
  int len = addr_len(family);
  uint32_t start = (h / STRIPES) % PER_STRIPE;
  Slot *spare = NULL;
  for (int i = 0; i < PROBE; i++) {
    Slot *e = &s->slot[(start + (uint32_t)i) % PER_STRIPE];
    if (e->family == family && memcmp(e->addr, addr, (size_t)len) == 0) return e;
    if (!add || e->conns > 0) continue;
    if (!spare || e->family == 0 || (spare->family != 0 && e->at_ms < spare->at_ms)) spare = e;
  }
  /* Every place of the run holds connections: this address is not followed (it is let through). */
  if (!spare) return NULL;
  memset(spare, 0, sizeof *spare);
  memcpy(spare->addr, addr, (size_t)len);
  spare->family = (uint8_t)family;
  spare->tokens = -1;
  spare->at_ms = now_ms;
  return spare;
}

int limit_take(Limiter *l, const uint8_t *addr, int family, int64_t now_ms, int64_t per_ms, int64_t cap) {
  if (!l || per_ms <= 0) return 0;
  uint32_t h = hash_of(addr, addr_len(family));
  Stripe *s = &l->stripe[h % STRIPES];
  int wait = 0;
  pthread_mutex_lock(&s->lock);
  Slot *e = find(s, h, addr, family, 1, now_ms);
  if (e) {
    int64_t tokens = e->tokens < 0 || e->tokens > cap ? cap : e->tokens;
    int64_t elapsed = now_ms - e->at_ms;
    /* Refilled at `per_ms`, never past the depth (and without overflowing after a long quiet). */
    if (elapsed > 0) tokens = elapsed > (cap - tokens) / per_ms ? cap : tokens + elapsed * per_ms;
    e->at_ms = now_ms;
    if (tokens >= LIMIT_TOKEN) {
      e->tokens = tokens - LIMIT_TOKEN;
    } else {
      e->tokens = tokens;
      /* Seconds until one token is there, rounded up. */
      int64_t ms = (LIMIT_TOKEN - tokens + per_ms - 1) / per_ms;
      wait = (int)((ms + 999) / 1000);
      if (wait < 1) wait = 1;
    }
  }
  pthread_mutex_unlock(&s->lock);
  return wait;
}

int limit_opened(Limiter *l, const uint8_t *addr, int family, int64_t now_ms, int max) {
  if (!l || max <= 0) return 1;
  uint32_t h = hash_of(addr, addr_len(family));
  Stripe *s = &l->stripe[h % STRIPES];
  int ok = -1;
  pthread_mutex_lock(&s->lock);
  Slot *e = find(s, h, addr, family, 1, now_ms);
  if (e) {
    e->conns++;
    e->at_ms = now_ms;
    ok = e->conns <= max;
  }
  pthread_mutex_unlock(&s->lock);
  return ok;
}

void limit_closed(Limiter *l, const uint8_t *addr, int family) {
  if (!l) return;
  uint32_t h = hash_of(addr, addr_len(family));
  Stripe *s = &l->stripe[h % STRIPES];
  pthread_mutex_lock(&s->lock);
  Slot *e = find(s, h, addr, family, 0, 0);
  if (e && e->conns > 0) e->conns--;
  pthread_mutex_unlock(&s->lock);
}
