#ifndef LUCKY_EDGE_OCSP_H
#define LUCKY_EDGE_OCSP_H

#include <stddef.h>

enum { OCSP_GOOD = 0, OCSP_REVOKED = 1, OCSP_UNKNOWN = 2, OCSP_BAD = -1 };

/* The DER of an OCSP request for `cert` (PEM) issued by `issuer` (PEM): its length, *der for OPENSSL_free; -1. */
int ocsp_request(const char *cert, size_t cert_len, const char *issuer, size_t issuer_len, unsigned char **der);
/* What an OCSP response (DER) says of `cert`: OCSP_GOOD... or OCSP_BAD when it is not a valid answer for it. */
int ocsp_check(const unsigned char *resp, size_t len, const char *cert, size_t cert_len, const char *issuer, size_t issuer_len, double *next_update);

#endif
