/*
 * What a request asks for, as the Node path reads it (web.match.ts, web.handler.ts): the host of
 * its Host header, the path of its target, and whether the site's filters let it through.
 */
#include "edge.h"
#include "route.h"

#include <string.h>

static int is_name_char(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'; }
static int is_v6_char(unsigned char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == ':' || c == '.'; }

static int port_ok(const char *p, uint32_t n) {
  if (n < 1 || n > 5) return 0;
  for (uint32_t i = 0; i < n; i++)
    if (p[i] < '0' || p[i] > '9') return 0;
  return 1;
}

/* A Host header: a lower-case name or address and its port as written. -1 when malformed (400). */
static int parse_host(Route *r, h1_str v) {
  r->host_n = 0;
  r->port = NULL;
  r->port_n = 0;
  r->host_v6 = 0;
  if (!v.p) return 0; /* HTTP/1.0 without a Host: the default site */
  if (v.n == 0 || v.n > 260) return -1;
  char low[260];
  for (uint32_t i = 0; i < v.n; i++) {
    unsigned char c = (unsigned char)v.p[i];
    low[i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
  }
  if (low[0] == '[') {
    const char *end = memchr(low, ']', v.n);
    if (!end) return -1;
    uint32_t hn = (uint32_t)(end - low - 1);
    if (hn < 2 || hn > 45) return -1;
    for (uint32_t i = 0; i < hn; i++)
      if (!is_v6_char((unsigned char)low[1 + i])) return -1;
    uint32_t rest = v.n - hn - 2;
    if (rest) {
      if (end[1] != ':' || !port_ok(v.p + hn + 3, rest - 1)) return -1;
      r->port = v.p + hn + 3;
      r->port_n = rest - 1;
    }
    memcpy(r->host, low + 1, hn);
    r->host_n = hn;
    r->host_v6 = 1;
    return 0;
  }
  const char *colon = memchr(low, ':', v.n);
  uint32_t hn = colon ? (uint32_t)(colon - low) : v.n;
  if (hn < 1 || hn > 253) return -1;
  for (uint32_t i = 0; i < hn; i++) {
    if (!is_name_char((unsigned char)low[i])) return -1;
    if (low[i] == '.' && i + 1 < hn && low[i + 1] == '.') return -1;
  }
  if (colon) {
    if (!port_ok(v.p + hn + 1, v.n - hn - 1)) return -1;
    r->port = v.p + hn + 1;
    r->port_n = v.n - hn - 1;
  }
  /* "example.com." is "example.com". */
  if (low[hn - 1] == '.') hn--;
  memcpy(r->host, low, hn);
  r->host_n = hn;
  return 0;
}

/* The path and query of an origin-form or absolute-form target; -1 when unusable (400). */
static int parse_target(Route *r, h1_str t) {
  if (t.n && t.p[0] == '/') {
    r->path = t.p;
    r->path_n = t.n;
    return 0;
  }
  uint32_t skip = 0;
  if (t.n >= 7 && strncasecmp(t.p, "http://", 7) == 0) skip = 7;
  else if (t.n >= 8 && strncasecmp(t.p, "https://", 8) == 0) skip = 8;
  else return -1;
  const char *auth = t.p + skip;
  const char *slash = memchr(auth, '/', t.n - skip);
  size_t auth_n = slash ? (size_t)(slash - auth) : t.n - skip;
  /*
   * No authority at all ("http://", which new URL() refuses on the Node path), or a query right
   * after it ("http://host?q"): the path is a span of the target, and "/" alone would lose the query.
   */
  if (auth_n == 0 || memchr(auth, '?', auth_n)) return -1;
  if (!slash) {
    r->path = "/";
    r->path_n = 1;
  } else {
    r->path = slash;
    r->path_n = (uint32_t)(t.p + t.n - slash);
  }
  return 0;
}

int route_parse(Route *r, h1_request *h) {
  r->h = h;
  if (parse_host(r, h->host) < 0) return -1;
  return parse_target(r, h->target);
}

static int ua_hit(const UaFilter *f, h1_str ua) {
  if (ua.n == 0) return 0;
  for (int i = 0; i < f->n; i++) {
    uint32_t n = f->lens[i];
    if (n > ua.n) continue;
    const char *want = f->list[i];
    for (uint32_t at = 0; at + n <= ua.n; at++) {
      uint32_t k = 0;
      while (k < n) {
        unsigned char c = (unsigned char)ua.p[at + k];
        if ((c >= 'A' && c <= 'Z' ? c + 32 : c) != (unsigned char)want[k]) break;
        k++;
      }
      if (k == n) return 1;
    }
  }
  return 0;
}

int route_denied(const Site *s, const Client *c, h1_request *h) {
  for (int i = 0; i < s->nip; i++)
    if (cidr_match(s->ip[i].list, s->ip[i].n, c->peer, c->family) != s->ip[i].whitelist) return 1;
  for (int i = 0; i < s->nua; i++)
    if (ua_hit(&s->ua[i], h->user_agent) != s->ua[i].whitelist) return 1;
  return 0;
}
