/*
 * Basic auth on the edge: Node checks a password (scrypt, on its thread pool); once it has verified
 * an Authorization header for a site, the edge accepts that very header itself for as long as Node
 * would have remembered it (5 minutes), so a logged-in client's requests stay native. A new table
 * (the rule saved: users or passwords changed) starts with none.
 */
#include "auth.h"

#include <stdlib.h>
#include <string.h>

AuthCache *auth_new(void) {
  AuthCache *a = calloc(1, sizeof *a);
  if (a) pthread_mutex_init(&a->lock, NULL);
  return a;
}

void auth_free(AuthCache *a) {
  if (!a) return;
  for (int i = 0; i < AUTH_KEPT; i++) free(a->e[i].header);
  pthread_mutex_destroy(&a->lock);
  free(a);
}

/* Equal bytes, in a time that does not tell how many matched. */
static int same(const char *a, const char *b, uint32_t n) {
  unsigned char d = 0;
  for (uint32_t i = 0; i < n; i++) d |= (unsigned char)(a[i] ^ b[i]);
  return d == 0;
}

int auth_ok(AuthCache *a, const char *header, uint32_t len, int64_t now) {
  if (!a || !header || !len) return 0;
  int ok = 0;
  pthread_mutex_lock(&a->lock);
  for (int i = 0; i < AUTH_KEPT && !ok; i++)
    if (a->e[i].header && a->e[i].len == len && a->e[i].until > now && same(a->e[i].header, header, len)) ok = 1;
  pthread_mutex_unlock(&a->lock);
  return ok;
}

void auth_add(AuthCache *a, const char *header, uint32_t len, int64_t until) {
  if (!a || !len || len > 4096) return;
  char *copy = malloc(len);
  if (!copy) return;
  memcpy(copy, header, len);
  pthread_mutex_lock(&a->lock);
  /* The same header again, else the slot that expires first. */
  int at = 0;
  for (int i = 0; i < AUTH_KEPT; i++) {
    if (a->e[i].header && a->e[i].len == len && memcmp(a->e[i].header, header, len) == 0) {
      at = i;
      break;
    }
    if (a->e[i].until < a->e[at].until) at = i;
  }
  char *old = a->e[at].header;
  a->e[at].header = copy;
  a->e[at].len = len;
  a->e[at].until = until;
  pthread_mutex_unlock(&a->lock);
  free(old);
}
