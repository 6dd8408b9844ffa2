/* The harnesses' shared checks (see common.h). */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fuzz_fail(const char *what, const char *file, int line) {
  fprintf(stderr, "\n==fuzz== invariant failed: %s (%s:%d)\n", what, file, line);
  abort();
}

int fuzz_inside(const char *base, size_t len, const char *p, size_t n) {
  if (!p) return n == 0;
  /* Addresses as integers: comparing pointers into different objects is itself undefined. */
  uintptr_t b = (uintptr_t)base, q = (uintptr_t)p;
  return q >= b && q - b <= len && n <= len - (q - b);
}

int fuzz_tchar(unsigned char b) {
  return (b >= '0' && b <= '9') || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b && strchr("!#$%&'*+-.^_`|~", b));
}

int fuzz_lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

int fuzz_is(h1_str s, const char *lower_text) {
  size_t n = strlen(lower_text);
  if (s.n != n) return 0;
  for (size_t i = 0; i < n; i++)
    if (fuzz_lower((unsigned char)s.p[i]) != lower_text[i]) return 0;
  return 1;
}

void fuzz_check_head(const char *buf, size_t len, const h1_header *headers, int n) {
  CHECK(len >= 4 && memcmp(buf + len - 4, "\r\n\r\n", 4) == 0);
  for (size_t i = 0; i < len; i++) {
    unsigned char b = (unsigned char)buf[i];
    if (b == '\r') CHECK(i + 1 < len && buf[i + 1] == '\n');
    else if (b == '\n') {
      CHECK(i > 0 && buf[i - 1] == '\r');
      if (i + 1 < len) CHECK(buf[i + 1] != ' ' && buf[i + 1] != '\t');
    } else CHECK((b >= 0x20 || b == '\t') && b != 0x7f);
  }
  CHECK(buf[0] != '\r' && buf[0] != ' ' && buf[0] != '\t');
  CHECK(n >= 0 && n <= H1_MAX_HEADERS);
  const char *prev = buf;
  for (int i = 0; i < n; i++) {
    const h1_header *h = &headers[i];
    CHECK(fuzz_inside(buf, len, h->name.p, h->name.n) && h->name.n > 0);
    CHECK(fuzz_inside(buf, len, h->value.p, h->value.n));
    /* In the order sent, each on a line of its own. */
    CHECK(h->name.p > prev && h->name.p[-1] == '\n');
    for (uint32_t k = 0; k < h->name.n; k++) CHECK(fuzz_tchar((unsigned char)h->name.p[k]));
    CHECK(h->name.p[h->name.n] == ':');
    if (h->value.n) {
      CHECK(h->value.p > h->name.p + h->name.n);
      CHECK(h->value.p[0] != ' ' && h->value.p[0] != '\t');
      CHECK(h->value.p[h->value.n - 1] != ' ' && h->value.p[h->value.n - 1] != '\t');
      CHECK(!memchr(h->value.p, '\r', h->value.n) && !memchr(h->value.p, '\n', h->value.n));
    }
    prev = h->name.p;
  }
}

void fuzz_rng_seed(fuzz_rng *r, const uint8_t *data, size_t n) {
  uint64_t h = 0xcbf29ce484222325u;
  for (size_t i = 0; i < n; i++) h = (h ^ data[i]) * 0x100000001b3u;
  r->s = h | 1;
}

static uint64_t next(fuzz_rng *r) {
  /* xorshift64* */
  r->s ^= r->s >> 12;
  r->s ^= r->s << 25;
  r->s ^= r->s >> 27;
  return r->s * 0x2545f4914f6cdd1du;
}

size_t fuzz_piece(fuzz_rng *r, size_t left) {
  uint64_t x = next(r);
  /* Single bytes and short pieces find off-by-ones at piece ends; long ones the ordinary reads. */
  size_t n = (x & 3) ? 1 + (size_t)((x >> 8) % 4) : 1 + (size_t)((x >> 8) % 512);
  return n < left ? n : left;
}

/* The same question asked without a cursor, a byte at a time: the reference for h1_head_end. */
static long head_end_naive(const char *b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (b[i] != '\n') continue;
    if (i == 0 || b[i - 1] != '\r') return -1;
    if (i >= 3 && b[i - 2] == '\n' && b[i - 3] == '\r') return (long)(i + 1);
  }
  return 0;
}

long fuzz_head_end(const char *buf, size_t len, int skip_crlf, fuzz_rng *r, size_t *start) {
  size_t off = 0;
  if (skip_crlf)
    while (len - off >= 2 && buf[off] == '\r' && buf[off + 1] == '\n') off += 2;
  size_t scan = 0;
  long whole = off < len ? h1_head_end(buf + off, len - off, &scan) : 0;
  CHECK(whole == head_end_naive(buf + off, len - off));
  if (whole > 0) CHECK(scan == (size_t)whole);
  else CHECK(scan <= len - off);

  /* The same bytes arriving in pieces; empty lines are dropped while the cursor is 0, as client.c does. */
  size_t at = 0, have = 0;
  long got = 0;
  scan = 0;
  while (have < len) {
    have += fuzz_piece(r, len - have);
    if (skip_crlf && scan == 0)
      while (have - at >= 2 && buf[at] == '\r' && buf[at + 1] == '\n') at += 2;
    if (have == at) continue;
    got = h1_head_end(buf + at, have - at, &scan);
    CHECK(got >= -1 && got <= (long)(have - at));
    if (got != 0) break;
    CHECK(scan <= have - at);
  }
  CHECK(at == off);
  CHECK(got == whole);
  *start = off;
  return whole;
}

int fuzz_chunked(const char *in, size_t n, fuzz_rng *r, size_t *end) {
  char *whole = malloc(n + 1);
  CHECK(whole != NULL);
  size_t wn = 0;

  /* Which bytes are data: everything else is framing (sizes, extensions, line ends, trailers). */
  uint8_t *is_data = calloc(n + 1, 1);
  CHECK(is_data != NULL);

  h1_chunked c;
  h1_chunked_init(&c);
  size_t pos = 0;
  int rc = CH_NEED;
  while (pos < n) {
    size_t used = 0, dn = 0;
    const char *d = NULL;
    rc = h1_chunked_read(&c, in + pos, n - pos, &used, &d, &dn);
    CHECK(rc == CH_DATA || rc == CH_NEED || rc == CH_DONE || rc == CH_BAD);
    CHECK(used <= n - pos);
    if (rc == CH_DATA) {
      CHECK(dn > 0 && fuzz_inside(in + pos, used, d, dn) && d + dn == in + pos + used);
      memcpy(whole + wn, d, dn);
      memset(is_data + (d - in), 1, dn);
      wn += dn;
      pos += used;
      continue;
    }
    if (rc == CH_NEED) CHECK(used == n - pos);
    pos += used;
    break;
  }
  if (rc == CH_DATA) rc = CH_NEED; /* the input ran out inside or right after a chunk's data */
  if (rc == CH_DONE) {
    CHECK(pos >= 5 && memcmp(in + pos - 2, "\r\n", 2) == 0);
    size_t used = 99, dn = 0;
    const char *d = NULL;
    /* An ended body stays ended, and takes nothing of what follows it. */
    CHECK(h1_chunked_read(&c, in + pos, n - pos, &used, &d, &dn) == CH_DONE && used == 0);
  }
  CHECK(wn <= pos);
  /*
   * The framing read so far, accepted or not yet refused, holds no NUL and no CR or LF outside a
   * CRLF: a body goes on to the backend as the client framed it, and a reader that splits lines
   * or ends strings differently must not find another end in it.
   */
  for (size_t i = 0; i < pos; i++) {
    if (is_data[i]) continue;
    CHECK(in[i] != 0);
    if (in[i] == '\r') CHECK(i + 1 >= pos || (in[i + 1] == '\n' && !is_data[i + 1]));
    if (in[i] == '\n') CHECK(i > 0 && in[i - 1] == '\r' && !is_data[i - 1]);
  }
  free(is_data);

  /* Again in pieces: the same data, compared as it comes, and the same end at the same place. */
  h1_chunked_init(&c);
  size_t pos2 = 0, wn2 = 0;
  int rc2 = CH_NEED;
  while (pos2 < n && rc2 != CH_DONE && rc2 != CH_BAD) {
    size_t piece_end = pos2 + fuzz_piece(r, n - pos2);
    while (pos2 < piece_end) {
      size_t used = 0, dn = 0;
      const char *d = NULL;
      rc2 = h1_chunked_read(&c, in + pos2, piece_end - pos2, &used, &d, &dn);
      CHECK(used <= piece_end - pos2);
      if (rc2 == CH_DATA) {
        CHECK(dn > 0 && fuzz_inside(in + pos2, used, d, dn) && d + dn == in + pos2 + used);
        CHECK(wn2 + dn <= wn && memcmp(whole + wn2, d, dn) == 0);
        wn2 += dn;
        pos2 += used;
        continue;
      }
      if (rc2 == CH_NEED) CHECK(used == piece_end - pos2);
      pos2 += used;
      break;
    }
  }
  if (rc2 == CH_DATA) rc2 = CH_NEED;
  CHECK(rc2 == rc);
  CHECK(wn2 == wn);
  CHECK(pos2 == pos);
  free(whole);
  *end = pos;
  return rc;
}
