/* A client's request head, read strictly (see http1.h). */
#include "http1_lines.h"

#include <string.h>

/* Request line: method SP target SP HTTP/1.x, single spaces, nothing else. */
static int request_line(const char *p, const char *eol, h1_request *r) {
  const char *m = p;
  while (m < eol && h1_tchar[(unsigned char)*m]) m++;
  if (m == p || m == eol || *m != ' ' || m - p > 32) return H1_BAD;
  r->method.p = p;
  r->method.n = (uint32_t)(m - p);
  const char *t = m + 1;
  const char *te = t;
  /* The target: visible ASCII or bytes of UTF-8 (browsers escape them; some tools do not). */
  while (te < eol && (unsigned char)*te > 0x20 && (unsigned char)*te != 0x7f) te++;
  if (te == t || te == eol || *te != ' ') return H1_BAD;
  r->target.p = t;
  r->target.n = (uint32_t)(te - t);
  const char *v = te + 1;
  if (eol - v != 8 || memcmp(v, "HTTP/", 5) != 0 || v[6] != '.') return H1_BAD;
  unsigned major = (unsigned char)v[5] - '0', minor = (unsigned char)v[7] - '0';
  if (major > 9 || minor > 9) return H1_BAD;
  if (major != 1 || minor > 1) return H1_VERSION;
  r->minor = (int)minor;
  return H1_OK;
}

int h1_parse_request(const char *buf, size_t len, h1_request *r) {
  r->nheaders = 0;
  r->content_length = -1;
  r->chunked = 0;
  r->keep_alive = 0;
  r->upgrade = 0;
  r->expect_continue = 0;
  r->host_count = 0;
  r->host.p = r->upgrade_proto.p = r->user_agent.p = r->authorization.p = r->origin.p = r->cookie.p = NULL;
  r->host.n = r->upgrade_proto.n = r->user_agent.n = r->authorization.n = r->origin.n = r->cookie.n = 0;
  r->cookies = 0;
  r->head_len = (uint32_t)len;
  if (len < 4 || memcmp(buf + len - 4, "\r\n\r\n", 4) != 0) return H1_BAD;
  const char *end = buf + len - 2; /* the blank line's CRLF */
  const char *eol = memchr(buf, '\n', len);
  if (!eol || eol == buf || eol[-1] != '\r') return H1_BAD;
  int rc = request_line(buf, eol - 1, r);
  if (rc != H1_OK) return rc;

  int conn_close = 0, conn_keep = 0, conn_upgrade = 0, te_seen = 0, cl_seen = 0, te_rc = H1_OK;
  const char *p = eol + 1;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl || nl == p || nl[-1] != '\r') return H1_BAD;
    if (r->nheaders == H1_MAX_HEADERS) return H1_TOO_LARGE;
    h1_header *h = &r->headers[r->nheaders];
    if (h1_header_line(p, nl - 1, h) < 0) return H1_BAD;
    r->nheaders++;
    p = nl + 1;
    switch (h->name.n) {
      case 4:
        if (h1_is(h->name, "host")) {
          r->host_count++;
          r->host = h->value;
        }
        break;
      case 6:
        if (h1_is(h->name, "expect")) {
          if (h1_is(h->value, "100-continue")) r->expect_continue = 1;
          else if (h->value.n) return H1_EXPECT;
        } else if (h1_is(h->name, "origin") && !r->origin.p) r->origin = h->value;
        else if (h1_is(h->name, "cookie") && r->cookies++ == 0) r->cookie = h->value;
        break;
      case 7:
        if (h1_is(h->name, "upgrade")) r->upgrade_proto = h->value;
        break;
      case 10:
        if (h1_is(h->name, "connection")) {
          conn_close |= h1_has_token(h->value, "close");
          conn_keep |= h1_has_token(h->value, "keep-alive");
          conn_upgrade |= h1_has_token(h->value, "upgrade");
        } else if (h1_is(h->name, "user-agent") && !r->user_agent.p) r->user_agent = h->value;
        break;
      case 13:
        if (h1_is(h->name, "authorization") && !r->authorization.p) r->authorization = h->value;
        break;
      case 14:
        if (h1_is(h->name, "content-length")) {
          /* One length, digits only: a second line or a list is how requests are smuggled. */
          if (cl_seen++) return H1_BAD;
          r->content_length = h1_decimal(h->value);
          if (r->content_length < 0) return H1_BAD;
        }
        break;
      case 17:
        if (h1_is(h->name, "transfer-encoding")) {
          if (te_seen++) return H1_BAD;
          if (h1_is(h->value, "chunked")) r->chunked = 1;
          else {
            /* chunked after codings we cannot undo is 501; chunked not last, or a disguised one, is 400. */
            h1_str last;
            int count = 0;
            te_rc = h1_last_token(h->value, &last, &count) == 0 && count > 1 && h1_is(last, "chunked") ? H1_CODING : H1_BAD;
          }
        }
        break;
    }
  }
  if (te_seen && cl_seen) return H1_BAD;
  if (te_seen && r->minor == 0) return H1_BAD;
  if (te_rc != H1_OK) return te_rc;
  if (r->minor == 1 ? r->host_count != 1 : r->host_count > 1) return H1_BAD;
  r->keep_alive = r->minor == 1 ? !conn_close : (conn_keep && !conn_close);
  r->upgrade = conn_upgrade && r->upgrade_proto.n > 0;
  r->is_head = r->method.n == 4 && memcmp(r->method.p, "HEAD", 4) == 0;
  r->is_connect = r->method.n == 7 && memcmp(r->method.p, "CONNECT", 7) == 0;
  return H1_OK;
}
