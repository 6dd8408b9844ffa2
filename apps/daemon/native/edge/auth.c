/*
 * Basic auth and Lucky login on the edge: Node checks a password (scrypt, on its thread pool) or a
 * portal session; once it has verified an Authorization header, or a session token with its user,
 * for a site, the edge accepts that very credential itself for as long as Node says (basic auth: 5
 * minutes; a session: at most 30 s, so that its idle time is renewed), and a logged-in client's
 * requests stay native. A new table (the rule saved) starts with none; sessions ended anywhere
 * clear every site's tokens (auth_clear).
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

int auth_user(AuthCache *a, const char *header, uint32_t len, int64_t now, char *user) {
  if (!a || !header || !len) return -1;
  int found = -1;
  pthread_mutex_lock(&a->lock);
  for (int i = 0; i < AUTH_KEPT && found < 0; i++) {
    if (a->e[i].header && a->e[i].len == len && a->e[i].until > now && same(a->e[i].header, header, len)) {
      found = (int)a->e[i].user_len;
      if (user) memcpy(user, a->e[i].user, a->e[i].user_len + 1);
    }
  }
  pthread_mutex_unlock(&a->lock);
  return found;
}

int auth_ok(AuthCache *a, const char *header, uint32_t len, int64_t now) { return auth_user(a, header, len, now, NULL) >= 0; }

void auth_add(AuthCache *a, const char *header, uint32_t len, int64_t until, const char *user, uint32_t user_len) {
  if (!a || !len || len > 4096 || user_len > AUTH_USER_MAX) return;
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
  if (user_len) memcpy(a->e[at].user, user, user_len);
  a->e[at].user[user_len] = 0;
  a->e[at].user_len = user_len;
  pthread_mutex_unlock(&a->lock);
  free(old);
}

void auth_clear(AuthCache *a) {
  if (!a) return;
  pthread_mutex_lock(&a->lock);
  for (int i = 0; i < AUTH_KEPT; i++) {
    free(a->e[i].header);
    a->e[i].header = NULL;
    a->e[i].len = 0;
    a->e[i].until = 0;
  }
  pthread_mutex_unlock(&a->lock);
}
