#ifndef LUCKY_EDGE_AUTH_H
#define LUCKY_EDGE_AUTH_H

#include <pthread.h>
#include <stdint.h>

/*
 * Credentials Node verified for one site, each until a time (monotonic ms): Authorization headers
 * (basic auth), or the login portal's session tokens with the user each names.
 */
#define AUTH_KEPT 64
#define AUTH_USER_MAX 128
typedef struct AuthCache {
  pthread_mutex_t lock;
  struct {
    char *header;
    uint32_t len;
    int64_t until;
    char user[AUTH_USER_MAX + 1];
    uint32_t user_len;
  } e[AUTH_KEPT];
} AuthCache;

AuthCache *auth_new(void);
void auth_free(AuthCache *a);
int auth_ok(AuthCache *a, const char *header, uint32_t len, int64_t now);
/* The user kept with a credential, copied to `user` (AUTH_USER_MAX + 1 bytes); its length, or -1 when not kept. */
int auth_user(AuthCache *a, const char *header, uint32_t len, int64_t now, char *user);
void auth_add(AuthCache *a, const char *header, uint32_t len, int64_t until, const char *user, uint32_t user_len);
/* Forgets every credential (sessions ended somewhere: each is asked again). */
void auth_clear(AuthCache *a);

#endif
