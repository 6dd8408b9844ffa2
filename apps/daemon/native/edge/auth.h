#ifndef LUCKY_EDGE_AUTH_H
#define LUCKY_EDGE_AUTH_H

#include <pthread.h>
#include <stdint.h>

/* Authorization headers Node verified for one site, each until a time (monotonic ms). */
#define AUTH_KEPT 32
typedef struct AuthCache {
  pthread_mutex_t lock;
  struct {
    char *header;
    uint32_t len;
    int64_t until;
  } e[AUTH_KEPT];
} AuthCache;

AuthCache *auth_new(void);
void auth_free(AuthCache *a);
int auth_ok(AuthCache *a, const char *header, uint32_t len, int64_t now);
void auth_add(AuthCache *a, const char *header, uint32_t len, int64_t until);

#endif
