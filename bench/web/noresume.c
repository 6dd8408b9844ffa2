/*
 * LD_PRELOAD shim for the TLS handshake row of bench/web/run.mjs: the client never resumes a session.
 *
 * wrk and h2load reconnect with SSL_shutdown + SSL_clear on the same SSL object, and SSL_clear keeps
 * the last session (with TLS 1.3, the last ticket the server sent), so every reconnect after the
 * first offers a PSK and the server skips the certificate signature and the full key exchange: a
 * "full handshakes" figure would then measure resumptions. Dropping the session right after
 * SSL_clear makes each connection a full handshake, whatever the server does with tickets.
 * run.mjs checks it on every run against an nginx that logs $ssl_session_reused.
 *
 * Both OpenSSL calls are looked up at run time, so the shim links against nothing and is harmless
 * in a process without libssl.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

typedef struct ssl_st SSL;
typedef struct ssl_session_st SSL_SESSION;

int SSL_clear(SSL *s) {
  static int (*clear)(SSL *);
  static int (*set_session)(SSL *, SSL_SESSION *);
  if (!clear) {
    clear = (int (*)(SSL *))dlsym(RTLD_NEXT, "SSL_clear");
    set_session = (int (*)(SSL *, SSL_SESSION *))dlsym(RTLD_NEXT, "SSL_set_session");
  }
  int r = clear(s);
  if (set_session) set_session(s, NULL);
  return r;
}
