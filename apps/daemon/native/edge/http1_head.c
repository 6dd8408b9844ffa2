/* What request and response heads share: where a head ends, header lines, tokens. */
#include "http1_lines.h"

#include <string.h>

/* tchar (RFC 9110 section 5.6.2). */
const unsigned char h1_tchar[256] = {
    ['!'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1, ['&'] = 1, ['\''] = 1, ['*'] = 1, ['+'] = 1, ['-'] = 1, ['.'] = 1,
    ['^'] = 1, ['_'] = 1, ['`'] = 1, ['|'] = 1, ['~'] = 1,
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1,
    ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1,
    ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1,
    ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1,
    ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1,
    ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1,
    ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
};

long h1_head_end(const char *buf, size_t len, size_t *scan) {
  size_t i = *scan;
  while (i < len) {
    const char *nl = memchr(buf + i, '\n', len - i);
    if (!nl) break;
    i = (size_t)(nl - buf);
    if (i == 0 || buf[i - 1] != '\r') return -1;
    if (i >= 3 && buf[i - 2] == '\n' && buf[i - 3] == '\r') {
      *scan = i + 1;
      return (long)(i + 1);
    }
    i++;
  }
  /* A CR at the very end may be the start of the blank line: look at it again next time. */
  *scan = len > 3 ? len - 3 : 0;
  return 0;
}

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

int h1_is(h1_str s, const char *want) {
  size_t n = strlen(want);
  if (s.n != n) return 0;
  for (size_t i = 0; i < n; i++)
    if (lower((unsigned char)s.p[i]) != want[i]) return 0;
  return 1;
}

int h1_next_element(h1_str list, const char **at, h1_str *one) {
  const char *p = *at, *end = list.p + list.n;
  if (p >= end) return 0;
  const char *comma = memchr(p, ',', (size_t)(end - p));
  const char *e = comma ? comma : end;
  while (p < e && (*p == ' ' || *p == '\t')) p++;
  const char *t = e;
  while (t > p && (t[-1] == ' ' || t[-1] == '\t')) t--;
  one->p = p;
  one->n = (uint32_t)(t - p);
  *at = comma ? comma + 1 : end;
  return 1;
}

int h1_has_token(h1_str list, const char *token) {
  const char *at = list.p;
  h1_str one;
  while (h1_next_element(list, &at, &one))
    if (h1_is(one, token)) return 1;
  return 0;
}

int h1_last_token(h1_str list, h1_str *last, int *count) {
  const char *at = list.p;
  h1_str one;
  int n = 0;
  while (h1_next_element(list, &at, &one)) {
    if (one.n == 0) return -1; /* an empty element */
    *last = one;
    n++;
  }
  *count = n;
  return n > 0 ? 0 : -1;
}

int64_t h1_decimal(h1_str s) {
  if (s.n == 0 || s.n > 15) return -1;
  int64_t v = 0;
  for (uint32_t i = 0; i < s.n; i++) {
    unsigned d = (unsigned char)s.p[i] - '0';
    if (d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

int h1_header_line(const char *p, const char *eol, h1_header *h) {
  const char *c = p;
  while (c < eol && h1_tchar[(unsigned char)*c]) c++;
  /* No name, or anything but a colon right after it (whitespace before the colon, a folded line). */
  if (c == p || c == eol || *c != ':') return -1;
  h->name.p = p;
  h->name.n = (uint32_t)(c - p);
  const char *v = c + 1;
  while (v < eol && (*v == ' ' || *v == '\t')) v++;
  const char *e = eol;
  while (e > v && (e[-1] == ' ' || e[-1] == '\t')) e--;
  for (const char *q = v; q < e; q++) {
    unsigned char b = (unsigned char)*q;
    /* Field content: visible bytes, obs-text, and single spaces or tabs; no control byte (CR, NUL...). */
    if ((b < 0x20 && b != '\t') || b == 0x7f) return -1;
  }
  h->value.p = v;
  h->value.n = (uint32_t)(e - v);
  return 0;
}
