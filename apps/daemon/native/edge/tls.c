/*
 * TLS connections of the edge (see tls.h). OpenSSL reads and writes the client's socket itself
 * (a socket BIO: no copy through a memory BIO). Buffers are given back while a connection is idle
 * (SSL_MODE_RELEASE_BUFFERS), so a thousand kept-alive TLS clients do not hold 34 KB each.
 * Answers are gathered into records of up to 16 KiB, one SSL_write each.
 */
#include "tls.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdlib.h>
#include <string.h>

#include "ticketkeys.h"

#define TLS_CHUNK (16 * 1024)

typedef struct {
  SSL_CTX *ctx;
  pthread_mutex_t lock; /* the OCSP response, replaced while handshakes read it */
  unsigned char *ocsp;
  size_t ocsp_len;
} Cert;

typedef struct {
  char *name;
  uint32_t len;
  int cert;
} Name;

struct TlsConf {
  int min_version;
  int offer_h2;
  int n;
  Cert *certs;
  int nexact, nwild;
  Name *exact, *wild; /* wild: ".suffix", longest first */
};

static void error_text(char *err, size_t len, const char *what) {
  unsigned long e = ERR_get_error();
  char detail[200] = "";
  if (e) ERR_error_string_n(e, detail, sizeof detail);
  ERR_clear_error();
  snprintf(err, len, "%s%s%s", what, *detail ? ": " : "", detail);
}

TlsConf *tls_conf_new(int min_version, int offer_h2, char *err, size_t errlen) {
  (void)err;
  (void)errlen;
  TlsConf *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->min_version = min_version;
  t->offer_h2 = offer_h2;
  return t;
}

int tls_conf_count(TlsConf *t) { return t->n; }

static int name_cmp(const char *a, uint32_t an, const char *b, uint32_t bn) {
  uint32_t m = an < bn ? an : bn;
  int c = memcmp(a, b, m);
  return c ? c : (an < bn ? -1 : an > bn);
}

/* The certificate for a server name: exact, then the longest `*.suffix`, else the first. */
static int cert_for(TlsConf *t, const char *name, uint32_t n) {
  int lo = 0, hi = t->nexact - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    int c = name_cmp(t->exact[mid].name, t->exact[mid].len, name, n);
    if (c == 0) return t->exact[mid].cert;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  for (int i = 0; i < t->nwild; i++)
    if (n > t->wild[i].len && memcmp(name + n - t->wild[i].len, t->wild[i].name, t->wild[i].len) == 0) return t->wild[i].cert;
  return 0;
}

static int on_servername(SSL *ssl, int *alert, void *arg) {
  (void)alert;
  TlsConf *t = arg;
  const char *name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
  if (!name || t->n < 2) return SSL_TLSEXT_ERR_OK;
  char low[256];
  size_t n = strlen(name);
  if (n >= sizeof low) return SSL_TLSEXT_ERR_OK;
  for (size_t i = 0; i < n; i++) low[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
  int c = cert_for(t, low, (uint32_t)n);
  if (c > 0) SSL_set_SSL_CTX(ssl, t->certs[c].ctx);
  return SSL_TLSEXT_ERR_OK;
}

static int on_alpn(SSL *ssl, const unsigned char **out, unsigned char *outlen, const unsigned char *in, unsigned int inlen, void *arg) {
  (void)ssl;
  TlsConf *t = arg;
  static const unsigned char both[] = "\x02h2\x08http/1.1";
  static const unsigned char h1[] = "\x08http/1.1";
  const unsigned char *ours = t->offer_h2 ? both : h1;
  unsigned int ours_len = t->offer_h2 ? sizeof both - 1 : sizeof h1 - 1;
  /* Our order decides (h2 first); a client offering neither gets no ALPN and speaks HTTP/1.1. */
  for (unsigned int i = 0; i < ours_len; i += 1u + ours[i]) {
    for (unsigned int k = 0; k < inlen; k += 1u + in[k]) {
      if (in[k] == ours[i] && k + 1u + in[k] <= inlen && memcmp(in + k + 1, ours + i + 1, ours[i]) == 0) {
        *out = in + k + 1;
        *outlen = in[k];
        return SSL_TLSEXT_ERR_OK;
      }
    }
  }
  return SSL_TLSEXT_ERR_NOACK;
}

static int on_status(SSL *ssl, void *arg) {
  Cert *c = arg;
  int rc = SSL_TLSEXT_ERR_NOACK;
  pthread_mutex_lock(&c->lock);
  if (c->ocsp) {
    unsigned char *copy = OPENSSL_malloc(c->ocsp_len);
    if (copy) {
      memcpy(copy, c->ocsp, c->ocsp_len);
      /* OpenSSL owns the copy from here. */
      SSL_set_tlsext_status_ocsp_resp(ssl, copy, (long)c->ocsp_len);
      rc = SSL_TLSEXT_ERR_OK;
    }
  }
  pthread_mutex_unlock(&c->lock);
  return rc;
}

static int add_name(Name **list, int *n, const char *name, uint32_t len, int cert) {
  Name *grown = realloc(*list, sizeof **list * (size_t)(*n + 1));
  if (!grown) return -1;
  *list = grown;
  char *copy = malloc(len + 1);
  if (!copy) return -1;
  memcpy(copy, name, len);
  copy[len] = 0;
  grown[*n] = (Name){copy, len, cert};
  (*n)++;
  return 0;
}

static int has_name(Name *list, int n, const char *name, uint32_t len) {
  for (int i = 0; i < n; i++)
    if (list[i].len == len && memcmp(list[i].name, name, len) == 0) return 1;
  return 0;
}

static int by_name(const void *a, const void *b) {
  const Name *x = a, *y = b;
  return name_cmp(x->name, x->len, y->name, y->len);
}

int tls_conf_add(TlsConf *t, const char *cert_pem, size_t cert_len, const char *key_pem, size_t key_len, char **names, uint32_t *lens, int nnames, char *err,
                 size_t errlen) {
  ERR_clear_error();
  SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
  if (!ctx) return error_text(err, errlen, "no TLS context"), -1;
  BIO *cb = BIO_new_mem_buf(cert_pem, (int)cert_len);
  BIO *kb = BIO_new_mem_buf(key_pem, (int)key_len);
  X509 *leaf = cb ? PEM_read_bio_X509(cb, NULL, NULL, NULL) : NULL;
  EVP_PKEY *key = kb ? PEM_read_bio_PrivateKey(kb, NULL, NULL, NULL) : NULL;
  int ok = leaf && key && SSL_CTX_use_certificate(ctx, leaf) == 1 && SSL_CTX_use_PrivateKey(ctx, key) == 1 && SSL_CTX_check_private_key(ctx) == 1;
  /* The rest of the chain, as the file gave it. */
  while (ok) {
    X509 *more = PEM_read_bio_X509(cb, NULL, NULL, NULL);
    if (!more) break;
    if (SSL_CTX_add0_chain_cert(ctx, more) != 1) {
      X509_free(more);
      ok = 0;
    }
  }
  ERR_clear_error(); /* the end of the chain reads as an error */
  X509_free(leaf);
  EVP_PKEY_free(key);
  BIO_free(cb);
  BIO_free(kb);
  if (!ok) {
    error_text(err, errlen, "certificate or key rejected");
    SSL_CTX_free(ctx);
    return -1;
  }
  SSL_CTX_set_min_proto_version(ctx, t->min_version);
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_CIPHER_SERVER_PREFERENCE);
  SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS | SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  /* One read takes what the socket has, not a record's 5-byte header and then its body in two. */
  SSL_CTX_set_read_ahead(ctx, 1);
  /* Resumption by tickets only (keys rotated: ticketkeys.c): no session cache to hold or share between threads. */
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
  SSL_CTX_set_num_tickets(ctx, 1);
  SSL_CTX_set_tlsext_ticket_key_evp_cb(ctx, ticket_key_cb);
  SSL_CTX_set_tlsext_servername_callback(ctx, on_servername);
  SSL_CTX_set_tlsext_servername_arg(ctx, t);
  SSL_CTX_set_alpn_select_cb(ctx, on_alpn, t);
  Cert *grown = realloc(t->certs, sizeof *t->certs * (size_t)(t->n + 1));
  if (!grown) {
    SSL_CTX_free(ctx);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  t->certs = grown;
  Cert *c = &t->certs[t->n];
  memset(c, 0, sizeof *c);
  c->ctx = ctx;
  pthread_mutex_init(&c->lock, NULL);
  int index = t->n++;
  /* The status callback's argument must stay put: certs may still grow, so it is set once all are in (tls_conf_ready). */
  for (int i = 0; i < nnames; i++) {
    /* The first certificate to name a host keeps it (lib/tls/contexts.ts). */
    if (lens[i] > 2 && names[i][0] == '*' && names[i][1] == '.') {
      if (!has_name(t->wild, t->nwild, names[i] + 1, lens[i] - 1) && add_name(&t->wild, &t->nwild, names[i] + 1, lens[i] - 1, index) < 0) return -1;
    } else if (!has_name(t->exact, t->nexact, names[i], lens[i]) && add_name(&t->exact, &t->nexact, names[i], lens[i], index) < 0)
      return -1;
  }
  qsort(t->exact, (size_t)t->nexact, sizeof *t->exact, by_name);
  /* Longest suffix first; among equals the first given. */
  for (int i = 1; i < t->nwild; i++) {
    Name e = t->wild[i];
    int j = i - 1;
    while (j >= 0 && t->wild[j].len < e.len) {
      t->wild[j + 1] = t->wild[j];
      j--;
    }
    t->wild[j + 1] = e;
  }
  return 0;
}

int tls_conf_ocsp_set(TlsConf *t, int i, const unsigned char *der, size_t len) {
  if (i < 0 || i >= t->n) return -1;
  Cert *c = &t->certs[i];
  unsigned char *copy = NULL;
  if (len) {
    copy = malloc(len);
    if (!copy) return -1;
    memcpy(copy, der, len);
  }
  pthread_mutex_lock(&c->lock);
  unsigned char *old = c->ocsp;
  c->ocsp = copy;
  c->ocsp_len = len;
  pthread_mutex_unlock(&c->lock);
  free(old);
  return 0;
}

void tls_conf_ready(TlsConf *t) {
  /* Set once, before any thread handshakes with these contexts: a callback set later, while threads
     read it, would be a data race. With no response stapled it answers "none". */
  for (int i = 0; i < t->n; i++) {
    SSL_CTX_set_tlsext_status_cb(t->certs[i].ctx, on_status);
    SSL_CTX_set_tlsext_status_arg(t->certs[i].ctx, &t->certs[i]);
  }
}

void tls_conf_free(TlsConf *t) {
  if (!t) return;
  for (int i = 0; i < t->n; i++) {
    /* Connections still holding a context keep it alive (OpenSSL counts them): only ours is let go. */
    SSL_CTX_set_tlsext_status_cb(t->certs[i].ctx, NULL);
    SSL_CTX_free(t->certs[i].ctx);
    free(t->certs[i].ocsp);
    pthread_mutex_destroy(&t->certs[i].lock);
  }
  for (int i = 0; i < t->nexact; i++) free(t->exact[i].name);
  for (int i = 0; i < t->nwild; i++) free(t->wild[i].name);
  free(t->exact);
  free(t->wild);
  free(t->certs);
  free(t);
}

void *tls_new(TlsConf *t, int fd) {
  if (!t || t->n == 0) return NULL;
  SSL *ssl = SSL_new(t->certs[0].ctx);
  if (!ssl) return NULL;
  if (SSL_set_fd(ssl, fd) != 1) {
    SSL_free(ssl);
    return NULL;
  }
  SSL_set_accept_state(ssl);
  return ssl;
}

void tls_free(Client *c) {
  if (c->ssl) SSL_free(c->ssl);
  c->ssl = NULL;
  free(c->tls_buf);
  c->tls_buf = NULL;
}

/* What OpenSSL wants before it can go on: the right readiness flag cleared, so an event brings us back. */
static int would_block(Client *c, int rc, int reading) {
  switch (SSL_get_error(c->ssl, rc)) {
    case SSL_ERROR_WANT_READ:
      c->readable = 0;
      if (!reading) c->tls_wants_read = 1;
      return -1;
    case SSL_ERROR_WANT_WRITE:
      c->writable = 0;
      if (reading) c->tls_wants_write = 1;
      return -1;
    case SSL_ERROR_ZERO_RETURN:
      return 0;
    default:
      ERR_clear_error();
      return -2;
  }
}

int tls_handshake(Client *c) {
  ERR_clear_error();
  int rc = SSL_do_handshake(c->ssl);
  if (rc == 1) return 1;
  int r = would_block(c, rc, 1);
  return r == -1 ? 0 : -1;
}

int tls_is_h2(Client *c) {
  const unsigned char *p = NULL;
  unsigned int n = 0;
  SSL_get0_alpn_selected(c->ssl, &p, &n);
  return n == 2 && p[0] == 'h' && p[1] == '2';
}

int tls_read(Client *c, char *buf, size_t n) {
  size_t got = 0;
  ERR_clear_error();
  int rc = SSL_read_ex(c->ssl, buf, n, &got);
  if (rc == 1) return (int)got;
  return would_block(c, rc, 1);
}

int tls_pending_out(Client *c) { return c->tls_len > c->tls_off; }

int tls_flush(Client *c) {
  for (;;) {
    if (c->tls_off >= c->tls_len) {
      /* Gather what is owed into one record's worth. */
      if (!c->tls_buf) c->tls_buf = malloc(TLS_CHUNK);
      if (!c->tls_buf) return -1;
      uint32_t n = 0;
      uint32_t k = c->out_len - c->out_off;
      if (k > TLS_CHUNK - n) k = TLS_CHUNK - n;
      memcpy(c->tls_buf + n, c->out + c->out_off, k);
      n += k;
      c->out_off += k;
      if (c->out_off == c->out_len) c->out_off = c->out_len = 0;
      k = c->span_len < TLS_CHUNK - n ? c->span_len : TLS_CHUNK - n;
      if (k) {
        memcpy(c->tls_buf + n, c->span, k);
        n += k;
        c->span += k;
        c->span_len -= k;
        if (!c->span_len) c->span = NULL;
      }
      k = c->tail_len - c->tail_off;
      if (k > TLS_CHUNK - n) k = TLS_CHUNK - n;
      memcpy(c->tls_buf + n, c->tail + c->tail_off, k);
      n += k;
      c->tail_off += k;
      if (c->tail_off >= c->tail_len) c->tail_off = c->tail_len = 0;
      c->tls_off = 0;
      c->tls_len = n;
      if (n == 0) return 1;
    }
    if (!c->writable) return 0;
    size_t w = 0;
    ERR_clear_error();
    /* After a WANT_WRITE OpenSSL wants the very same bytes again: tls_buf stays as it is until taken. */
    int rc = SSL_write_ex(c->ssl, c->tls_buf + c->tls_off, c->tls_len - c->tls_off, &w);
    if (rc == 1) {
      c->tls_off += (uint32_t)w;
      c->bytes_out += w;
      continue;
    }
    int r = would_block(c, rc, 0);
    if (r == -1) return 0;
    return -1;
  }
}

void tls_bye(Client *c) {
  if (!c->ssl) return;
  ERR_clear_error();
  SSL_shutdown(c->ssl);
  ERR_clear_error();
}
