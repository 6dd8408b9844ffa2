/*
 * Cookie header values, for Lucky login on the edge (cookie.h): the session's token is found to be
 * checked, and the portal's own cookies are taken out of what the app gets (as the Node path does,
 * web.portalgate.ts). Pairs are split on ';'; a pair's name is what comes before its first '=',
 * spaces around it ignored; a pair without '=' is kept as it is and never matches.
 */
#include "cookie.h"

#include <string.h>

/* Calls `each` for the pair [p, e) trimmed of spaces and tabs; stops when it returns nonzero. */
typedef int (*PairFn)(const char *p, const char *e, void *arg);

static int pairs(const char *v, uint32_t n, PairFn each, void *arg) {
  const char *p = v, *end = v + n;
  while (p < end) {
    const char *semi = memchr(p, ';', (size_t)(end - p));
    const char *e = semi ? semi : end;
    const char *a = p, *b = e;
    while (a < b && (*a == ' ' || *a == '\t')) a++;
    while (b > a && (b[-1] == ' ' || b[-1] == '\t')) b--;
    if (a < b && each(a, b, arg)) return 1;
    p = semi ? semi + 1 : end;
  }
  return 0;
}

/* The name of a pair (before '=', trailing spaces off); 0 when it has no '='. */
static int name_of(const char *p, const char *e, const char **name_end) {
  const char *eq = memchr(p, '=', (size_t)(e - p));
  if (!eq) return 0;
  const char *t = eq;
  while (t > p && (t[-1] == ' ' || t[-1] == '\t')) t--;
  *name_end = t;
  return 1;
}

struct Find {
  const char *name;
  uint32_t name_n;
  const char *val;
  uint32_t val_n;
};

static int find_one(const char *p, const char *e, void *arg) {
  struct Find *f = arg;
  const char *ne;
  if (!name_of(p, e, &ne) || (uint32_t)(ne - p) != f->name_n || memcmp(p, f->name, f->name_n) != 0) return 0;
  const char *val = memchr(p, '=', (size_t)(e - p)) + 1;
  while (val < e && (*val == ' ' || *val == '\t')) val++;
  f->val = val;
  f->val_n = (uint32_t)(e - val);
  return 1;
}

int cookie_find(const char *v, uint32_t n, const char *name, uint32_t name_n, const char **val, uint32_t *val_n) {
  struct Find f = {name, name_n, NULL, 0};
  if (!v || !pairs(v, n, find_one, &f)) return 0;
  *val = f.val;
  *val_n = f.val_n;
  return 1;
}

struct Strip {
  char *dst;
  uint32_t len;
};

static int is_portal(const char *p, const char *ne) {
  uint32_t k = (uint32_t)(ne - p);
  return (k == 12 && memcmp(p, "lucky_portal", 12) == 0) || (k == 17 && memcmp(p, "lucky_portal_form", 17) == 0);
}

static int keep_one(const char *p, const char *e, void *arg) {
  struct Strip *s = arg;
  const char *ne;
  if (name_of(p, e, &ne) && is_portal(p, ne)) return 0;
  if (s->len) {
    memcpy(s->dst + s->len, "; ", 2);
    s->len += 2;
  }
  memcpy(s->dst + s->len, p, (size_t)(e - p));
  s->len += (uint32_t)(e - p);
  return 0;
}

uint32_t cookie_strip_portal(const char *v, uint32_t n, char *dst) {
  /* At most every byte kept, and "; " for each ';' of the input: never past 2 * n. */
  struct Strip s = {dst, 0};
  if (v) pairs(v, n, keep_one, &s);
  return s.len;
}
