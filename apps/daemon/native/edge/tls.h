/*
 * TLS on the edge, by the OpenSSL that Node carries (its symbols are Node's own; its headers are in
 * Node's include/node/openssl). One SSL_CTX per certificate of a rule, the one for the client's
 * server name (SNI: exact, then the longest wildcard, else the first) picked during the handshake.
 */
#ifndef LUCKY_EDGE_TLS_H
#define LUCKY_EDGE_TLS_H

#include "edge.h"

typedef struct TlsConf TlsConf;

/* 1.0 → TLS1_VERSION...; names: the certificate's server names, lower case. NULL with `err` set. */
TlsConf *tls_conf_new(int min_version, int offer_h2, char *err, size_t errlen);
int tls_conf_add(TlsConf *t, const char *cert_pem, size_t cert_len, const char *key_pem, size_t key_len, char **names, uint32_t *lens, int nnames, char *err,
                 size_t errlen);
void tls_conf_free(TlsConf *t);
int tls_conf_count(TlsConf *t);
/* Once every certificate is in, before the contexts serve: their OCSP status callbacks. */
void tls_conf_ready(TlsConf *t);
/* The OCSP response (DER) stapled for certificate `i` from now on; len 0 staples none. 0, or -1. */
int tls_conf_ocsp_set(TlsConf *t, int i, const unsigned char *der, size_t len);

/* A new server-side connection on fd; NULL when out of memory. */
void *tls_new(TlsConf *t, int fd);
void tls_free(Client *c);
/* 1 done, 0 wait (flags say for what), -1 failed. */
int tls_handshake(Client *c);
/* "h2" was agreed by ALPN. */
int tls_is_h2(Client *c);
/* >0 bytes, 0 end of stream, -1 would block, -2 broken. */
int tls_read(Client *c, char *buf, size_t n);
/* As client_flush: 1 all sent, 0 would block, -1 broken. */
int tls_flush(Client *c);
/* Sends close_notify, best effort. */
void tls_bye(Client *c);
/* Anything sent through TLS still waiting to go. */
int tls_pending_out(Client *c);

#endif
