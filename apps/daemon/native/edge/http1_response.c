/* A backend's response head, read as the Node path's parser reads it (web.response.ts). */
#include "http1_lines.h"

#include <string.h>

/* The number after `timeout=` in a Keep-Alive header, in ms; -1 when absent. */
static int64_t keep_alive_timeout(h1_str v) {
  const char *p = v.p, *end = v.p + v.n;
  while (p + 7 < end) {
    /* At the start, or after a separator. */
    if ((p == v.p || p[-1] == ',' || p[-1] == ';' || p[-1] == ' ' || p[-1] == '\t') && (p[0] | 32) == 't') {
      h1_str word = {p, 7};
      if (h1_is(word, "timeout")) {
        const char *q = p + 7;
        while (q < end && (*q == ' ' || *q == '\t')) q++;
        if (q < end && *q == '=') {
          q++;
          while (q < end && (*q == ' ' || *q == '\t')) q++;
          int64_t n = 0;
          int digits = 0;
          while (q < end && *q >= '0' && *q <= '9' && digits < 9) n = n * 10 + (*q++ - '0'), digits++;
          if (digits) return n * 1000;
        }
      }
    }
    p++;
  }
  return -1;
}

int h1_parse_response(const char *buf, size_t len, h1_response *r) {
  r->nheaders = 0;
  r->content_length = -1;
  r->chunked = 0;
  r->to_close = 0;
  r->close = 0;
  r->keep_alive_ms = -1;
  r->head_len = (uint32_t)len;
  if (len < 4 || memcmp(buf + len - 4, "\r\n\r\n", 4) != 0) return H1_BAD;
  const char *end = buf + len - 2;
  const char *nl = memchr(buf, '\n', len);
  if (!nl || nl == buf || nl[-1] != '\r') return H1_BAD;
  const char *eol = nl - 1;
  /* "HTTP/1.1 200" and an optional reason after a space. */
  size_t line = (size_t)(eol - buf);
  if (line < 12 || memcmp(buf, "HTTP/1.", 7) != 0 || buf[8] != ' ' || (line > 12 && buf[12] != ' ')) return H1_BAD;
  int minor = buf[7] - '0';
  h1_str code = {buf + 9, 3};
  int64_t status = h1_decimal(code);
  if ((minor != 0 && minor != 1) || status < 100) return H1_BAD;
  for (const char *q = buf + 12; q < eol; q++) {
    unsigned char b = (unsigned char)*q;
    if ((b < 0x20 && b != '\t') || b == 0x7f) return H1_BAD;
  }
  r->status = (int)status;
  r->minor = minor;

  int keep = 0;
  const char *p = nl + 1;
  while (p < end) {
    const char *n2 = memchr(p, '\n', (size_t)(end - p));
    if (!n2 || n2 == p || n2[-1] != '\r') return H1_BAD;
    if (r->nheaders == H1_MAX_HEADERS) return H1_TOO_LARGE;
    h1_header *h = &r->headers[r->nheaders];
    if (h1_header_line(p, n2 - 1, h) < 0) return H1_BAD;
    r->nheaders++;
    p = n2 + 1;
    switch (h->name.n) {
      case 10:
        if (h1_is(h->name, "connection")) {
          r->close |= h1_has_token(h->value, "close");
          keep |= h1_has_token(h->value, "keep-alive");
        } else if (h1_is(h->name, "keep-alive")) {
          r->keep_alive_ms = keep_alive_timeout(h->value);
        }
        break;
      case 14:
        if (h1_is(h->name, "content-length")) {
          /* A repeated or listed length is one length when every value agrees. */
          const char *at = h->value.p;
          h1_str part;
          if (h->value.n == 0) return H1_BAD;
          while (h1_next_element(h->value, &at, &part)) {
            int64_t v = h1_decimal(part);
            if (v < 0 || (r->content_length >= 0 && r->content_length != v)) return H1_BAD;
            r->content_length = v;
          }
          /* A trailing comma is an empty element too. */
          if (h->value.p[h->value.n - 1] == ',') return H1_BAD;
        }
        break;
      case 17:
        if (h1_is(h->name, "transfer-encoding")) {
          h1_str last;
          int count = 0;
          if (h1_last_token(h->value, &last, &count) < 0) return H1_BAD;
          r->chunked = h1_is(last, "chunked");
          r->to_close = !r->chunked;
        }
        break;
    }
  }
  if (r->content_length >= 0 && (r->chunked || r->to_close)) return H1_BAD;
  if (minor == 0 && !keep) r->close = 1;
  return H1_OK;
}
