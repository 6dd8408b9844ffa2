/*
 * OCSP stapling's two questions for OpenSSL: the request to send a certificate's responder, and
 * whether an answer is a good one for that certificate (signed for its issuer, in its validity,
 * status good). JavaScript asks the responder over HTTP (web.ocsp.ts) and staples what passes here.
 */
#include "ocsp.h"

#include <openssl/err.h>
#include <openssl/ocsp.h>
#include <openssl/pem.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static X509 *pem_cert(const char *pem, size_t len) {
  BIO *b = BIO_new_mem_buf(pem, (int)len);
  X509 *x = b ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;
  BIO_free(b);
  return x;
}

int ocsp_request(const char *cert, size_t cert_len, const char *issuer, size_t issuer_len, unsigned char **der) {
  ERR_clear_error();
  X509 *c = pem_cert(cert, cert_len), *i = pem_cert(issuer, issuer_len);
  OCSP_REQUEST *req = NULL;
  int n = -1;
  OCSP_CERTID *id = c && i ? OCSP_cert_to_id(NULL, c, i) : NULL;
  if (id && (req = OCSP_REQUEST_new()) && OCSP_request_add0_id(req, id)) {
    id = NULL; /* the request owns it now */
    *der = NULL;
    n = i2d_OCSP_REQUEST(req, der);
  }
  OCSP_CERTID_free(id);
  OCSP_REQUEST_free(req);
  X509_free(c);
  X509_free(i);
  ERR_clear_error();
  return n;
}

static double ms_of(const ASN1_GENERALIZEDTIME *t) {
  struct tm tm;
  if (!t || ASN1_TIME_to_tm(t, &tm) != 1) return 0;
  return (double)timegm(&tm) * 1000.0;
}

int ocsp_check(const unsigned char *resp, size_t len, const char *cert, size_t cert_len, const char *issuer, size_t issuer_len, double *next_update) {
  ERR_clear_error();
  int result = OCSP_BAD;
  const unsigned char *p = resp;
  OCSP_RESPONSE *r = d2i_OCSP_RESPONSE(NULL, &p, (long)len);
  OCSP_BASICRESP *bs = NULL;
  X509 *c = pem_cert(cert, cert_len), *i = pem_cert(issuer, issuer_len);
  X509_STORE *store = X509_STORE_new();
  STACK_OF(X509) *signers = sk_X509_new_null();
  OCSP_CERTID *id = NULL;
  *next_update = 0;
  if (!r || !c || !i || !store || !signers || OCSP_response_status(r) != OCSP_RESPONSE_STATUS_SUCCESSFUL) goto done;
  if (!(bs = OCSP_response_get1_basic(r))) goto done;
  /* The issuer is the anchor: signed by it, or by a responder it certified. */
  X509_STORE_add_cert(store, i);
  X509_STORE_set_flags(store, X509_V_FLAG_PARTIAL_CHAIN);
  sk_X509_push(signers, i);
  if (OCSP_basic_verify(bs, signers, store, 0) != 1) goto done;
  if (!(id = OCSP_cert_to_id(NULL, c, i))) goto done;
  int status = -1, reason = 0;
  ASN1_GENERALIZEDTIME *rev = NULL, *thisupd = NULL, *nextupd = NULL;
  if (OCSP_resp_find_status(bs, id, &status, &reason, &rev, &thisupd, &nextupd) != 1) goto done;
  if (OCSP_check_validity(thisupd, nextupd, 300, -1) != 1) goto done;
  *next_update = nextupd ? ms_of(nextupd) : 0;
  result = status == V_OCSP_CERTSTATUS_GOOD ? OCSP_GOOD : status == V_OCSP_CERTSTATUS_REVOKED ? OCSP_REVOKED : OCSP_UNKNOWN;
done:
  OCSP_CERTID_free(id);
  sk_X509_free(signers); /* the issuer is freed below, once */
  X509_STORE_free(store);
  OCSP_BASICRESP_free(bs);
  OCSP_RESPONSE_free(r);
  X509_free(c);
  X509_free(i);
  ERR_clear_error();
  return result;
}
