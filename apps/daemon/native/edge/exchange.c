/*
 * A request on its way to a backend (the proxy) or to the rule's Node server (the fallback), and its
 * answer on the way back. The request head is rewritten as the Node path's proxy does
 * (web.proxy.ts requestHeaders, responseHeaders); bodies pass as the sender framed them, checked on
 * the way (a length, or chunks read by http1_chunked.c), never buffered beyond one read.
 * Balancing, retries and passive health follow web.proxy.ts.
 */
#include "edge.h"
#include "exchange.h"
#include "cookie.h"
#include "out.h"
#include "h2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* ------------------------------------------------------------------ a growable byte buffer */

typedef struct {
  char *p;
  uint32_t n, cap;
  int failed;
} Buf;

static void buf_put(Buf *b, const char *s, uint32_t n) {
  if (b->failed || n == 0) return;
  if (b->cap - b->n < n) {
    uint32_t cap = b->cap ? b->cap : 1024;
    while (cap - b->n < n) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
      b->failed = 1;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
}

static void buf_str(Buf *b, const char *s) { buf_put(b, s, (uint32_t)strlen(s)); }

static void buf_header(Buf *b, const char *name, uint32_t nn, const char *value, uint32_t vn) {
  buf_put(b, name, nn);
  buf_put(b, ": ", 2);
  buf_put(b, value, vn);
  buf_put(b, "\r\n", 2);
}

/* ------------------------------------------------------------------ header names */

static int ieq(const char *a, uint32_t an, const char *b, uint32_t bn) {
  if (an != bn) return 0;
  for (uint32_t i = 0; i < an; i++) {
    unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
    if ((x >= 'A' && x <= 'Z' ? x + 32 : x) != (y >= 'A' && y <= 'Z' ? y + 32 : y)) return 0;
  }
  return 1;
}

/* Headers of one hop (RFC 9110 section 7.6.1), and ours: never passed to a backend. */
static int request_hop(h1_str n) {
  switch (n.n) {
    case 2: return h1_is(n, "te");
    case 4: return h1_is(n, "host");
    case 6: return h1_is(n, "expect");
    case 7: return h1_is(n, "trailer") || h1_is(n, "upgrade");
    case 10: return h1_is(n, "connection") || h1_is(n, "keep-alive") || h1_is(n, "lucky-edge");
    case 14: return h1_is(n, "http2-settings");
    case 16: return h1_is(n, "proxy-connection");
    case 17: return h1_is(n, "transfer-encoding");
    case 18: return h1_is(n, "proxy-authenticate");
    case 19: return h1_is(n, "proxy-authorization");
  }
  return 0;
}

static int forwarded_name(h1_str n) {
  return (n.n == 9 && h1_is(n, "x-real-ip")) || (n.n == 15 && h1_is(n, "x-forwarded-for")) || (n.n == 16 && h1_is(n, "x-forwarded-host")) ||
         (n.n == 17 && h1_is(n, "x-forwarded-proto"));
}

/* Named by a Connection header of the request: belongs to this hop too. */
static int connection_listed(h1_request *h, h1_str n) {
  for (int i = 0; i < h->nheaders; i++) {
    h1_header *k = &h->headers[i];
    if (k->name.n != 10 || !h1_is(k->name, "connection")) continue;
    const char *p = k->value.p, *end = p + k->value.n;
    while (p < end) {
      const char *comma = memchr(p, ',', (size_t)(end - p));
      const char *e = comma ? comma : end;
      while (p < e && (*p == ' ' || *p == '\t')) p++;
      const char *t = e;
      while (t > p && (t[-1] == ' ' || t[-1] == '\t')) t--;
      if (ieq(p, (uint32_t)(t - p), n.p, n.n)) return 1;
      p = comma ? comma + 1 : end;
    }
  }
  return 0;
}

static int custom_has(const Hdr *list, int n, const char *name, uint32_t len) {
  for (int i = 0; i < n; i++)
    if (ieq(list[i].name, list[i].name_len, name, len)) return 1;
  return 0;
}

static int idempotent(const char *m, uint32_t n) {
  return (n == 3 && (!memcmp(m, "GET", 3) || !memcmp(m, "PUT", 3))) || (n == 4 && !memcmp(m, "HEAD", 4)) ||
         (n == 5 && !memcmp(m, "TRACE", 5)) || (n == 6 && !memcmp(m, "DELETE", 6)) || (n == 7 && !memcmp(m, "OPTIONS", 7));
}

/* ------------------------------------------------------------------ backends */

static uint32_t hash_ip(const char *ip, uint32_t n) {
  uint32_t h = 2166136261u;
  for (uint32_t i = 0; i < n; i++) {
    h ^= (unsigned char)ip[i];
    h *= 16777619u;
  }
  return h;
}

/* The next backend never among `tried`; when every one is out, the one out the longest. */
static Backend *pick(Client *c, Site *s, uint64_t tried) {
  Proxy *p = &s->proxy;
  int n = p->n;
  int64_t now = c->w->now;
#define TRIED(i) ((i) < 64 && ((tried >> (i)) & 1))
  if (n == 1) return TRIED(0) ? NULL : &p->backends[0];
#define OK(b) ((b)->healthy && (b)->down_until <= now && !TRIED((b)->index))
  if (p->balance == BAL_LEASTCONN) {
    unsigned start = __atomic_fetch_add(&p->rr, 1, __ATOMIC_RELAXED);
    Backend *best = NULL;
    for (int i = 0; i < n; i++) {
      Backend *b = &p->backends[(start + (unsigned)i) % (unsigned)n];
      if (OK(b) && (!best || b->active < best->active)) best = b;
    }
    if (best) return best;
  } else {
    unsigned start = p->balance == BAL_IPHASH ? hash_ip(c->ip, c->ip_len) % (unsigned)n : __atomic_fetch_add(&p->rr, 1, __ATOMIC_RELAXED) % (unsigned)n;
    for (int i = 0; i < n; i++) {
      Backend *b = &p->backends[(start + (unsigned)i) % (unsigned)n];
      if (OK(b)) return b;
    }
  }
  Backend *fallback = NULL;
  for (int i = 0; i < n; i++) {
    Backend *b = &p->backends[i];
    if (!TRIED(i) && (!fallback || b->down_until < fallback->down_until)) fallback = b;
  }
  return fallback;
#undef OK
#undef TRIED
}

static void backend_failed(Client *c, Backend *b, int err) {
  Proxy *p = &c->x.site->proxy;
  b->fails++;
  if (b->fails >= p->max_fails && b->down_until <= c->w->now) {
    b->down_until = c->w->now + p->fail_timeout_ms;
    edge_emit_backend_down(c->rule, (int)(c->x.site - c->table->sites), b, err);
  }
}

static void backend_ok(Backend *b) {
  if (b->fails) b->fails = 0;
  if (b->down_until) b->down_until = 0;
}

void exchange_release_backend(Exchange *x) {
  if (x->backend_held) {
    __atomic_sub_fetch(&x->backend->active, 1, __ATOMIC_RELAXED);
    x->backend_held = 0;
  }
}

void exchange_reset(Exchange *x) {
  free(x->line);
  free(x->rest);
  free(x->keep);
  memset(x, 0, sizeof *x);
}

/* ------------------------------------------------------------------ request heads */

/* The part that depends on the backend: request line and Host. */
static int build_line(Client *c) {
  Exchange *x = &c->x;
  Backend *b = x->backend;
  Proxy *p = &x->site->proxy;
  const char *method = x->keep, *path = x->keep + x->method_n, *host = path + x->path_n;
  Buf out = {0};
  buf_put(&out, method, x->method_n);
  buf_put(&out, " ", 1);
  buf_put(&out, b->base, b->base_len);
  buf_put(&out, path, x->path_n);
  buf_str(&out, " HTTP/1.1\r\n");
  if (!custom_has(p->req_headers, p->nreq, "host", 4)) {
    if (p->use_request_host && x->host_n) buf_header(&out, "host", 4, host, x->host_n);
    else buf_header(&out, "host", 4, b->host, b->host_len);
  }
  free(x->line);
  x->line = out.p;
  x->line_len = out.n;
  x->sent = 0;
  return out.failed ? -1 : 0;
}

/* A Cookie header without the portal's cookies; none at all when nothing else is left. */
static void put_cookie(Buf *out, const char *v, uint32_t n) {
  char *kept = malloc((size_t)n * 2 + 2);
  if (!kept) {
    out->failed = 1;
    return;
  }
  uint32_t len = cookie_strip_portal(v, n, kept);
  if (len) buf_header(out, "cookie", 6, kept, len);
  free(kept);
}

/* The rest: the client's headers less this hop's, the forwarded ones, the rule's own, the framing. */
static int build_rest(Client *c, h1_request *h) {
  Exchange *x = &c->x;
  Proxy *p = &x->site->proxy;
  Buf out = {0};
  int has_length = 0;
  /* A portal session's request: the app gets its user, never a client's forgery or the session's cookie. */
  const Site *site = x->site;
  int portal = c->portal_user_len >= 0 && site->portal;
  for (int i = 0; i < h->nheaders; i++) {
    h1_header *k = &h->headers[i];
    if (request_hop(k->name) || connection_listed(h, k->name)) continue;
    if (p->forwarded && forwarded_name(k->name)) continue;
    if (p->nreq && custom_has(p->req_headers, p->nreq, k->name.p, k->name.n)) continue;
    if (portal && site->user_header_len && ieq(k->name.p, k->name.n, site->user_header, site->user_header_len)) continue;
    if (portal && k->name.n == 6 && h1_is(k->name, "cookie")) {
      put_cookie(&out, k->value.p, k->value.n);
      continue;
    }
    if (k->name.n == 14 && h1_is(k->name, "content-length")) has_length = 1;
    buf_header(&out, k->name.p, k->name.n, k->value.p, k->value.n);
  }
  if (portal && site->user_header_len && c->portal_user_len > 0) buf_header(&out, site->user_header, site->user_header_len, c->portal_user, (uint32_t)c->portal_user_len);
  if (p->forwarded) {
    const char *proto = c->table->tls ? "https" : "http";
#define FWD(name, value, len) \
  if (!custom_has(p->req_headers, p->nreq, name, sizeof name - 1)) buf_header(&out, name, sizeof name - 1, value, len)
    FWD("x-forwarded-for", c->ip, c->ip_len);
    FWD("x-forwarded-proto", proto, (uint32_t)strlen(proto));
    FWD("x-forwarded-host", h->host.p ? h->host.p : "", h->host.n);
    FWD("x-real-ip", c->ip, c->ip_len);
#undef FWD
  }
  for (int i = 0; i < p->nreq; i++)
    if (p->req_headers[i].value_len) buf_header(&out, p->req_headers[i].name, p->req_headers[i].name_len, p->req_headers[i].value, p->req_headers[i].value_len);
  if (h->upgrade) {
    buf_str(&out, "connection: upgrade\r\nupgrade: ");
    buf_put(&out, h->upgrade_proto.p, h->upgrade_proto.n);
    buf_str(&out, "\r\n");
  } else if (x->req_mode == 2) {
    buf_str(&out, "transfer-encoding: chunked\r\n");
  } else if (!has_length && ((h->method.n == 4 && !memcmp(h->method.p, "POST", 4)) || (h->method.n == 3 && !memcmp(h->method.p, "PUT", 3)) ||
                             (h->method.n == 5 && !memcmp(h->method.p, "PATCH", 5)))) {
    /* A body-less POST still says so to strict backends. */
    buf_str(&out, "content-length: 0\r\n");
  }
  buf_str(&out, "\r\n");
  x->rest = out.p;
  x->rest_len = out.n;
  return out.failed ? -1 : 0;
}

/* To the Node server: the client's head as it came, with its address and scheme in `lucky-edge`. */
static int build_fallback(Client *c, h1_request *h) {
  Exchange *x = &c->x;
  Buf out = {0};
  buf_put(&out, h->method.p, h->method.n);
  buf_put(&out, " ", 1);
  buf_put(&out, h->target.p, h->target.n);
  buf_str(&out, h->minor ? " HTTP/1.1\r\n" : " HTTP/1.0\r\n");
  char meta[96];
  int n = snprintf(meta, sizeof meta, "lucky-edge: %s %u %s\r\n", c->ip, c->peer_port, c->table->tls ? "https" : "http");
  buf_put(&out, meta, (uint32_t)n);
  for (int i = 0; i < h->nheaders; i++) {
    h1_header *k = &h->headers[i];
    /* A client's own `lucky-edge` would speak for it: dropped. */
    if (k->name.n == 10 && h1_is(k->name, "lucky-edge")) continue;
    buf_header(&out, k->name.p, k->name.n, k->value.p, k->value.n);
  }
  buf_str(&out, "\r\n");
  x->line = out.p;
  x->line_len = out.n;
  return out.failed ? -1 : 0;
}

/* ------------------------------------------------------------------ the exchange */

static void exchange_connect(Client *c, int fresh) {
  Exchange *x = &c->x;
  int err = 0;
  Upstream *u;
  x->sent = 0;
  if (x->fallback) u = upstream_get(c->w, c->rule, NULL, 0, fresh, &err);
  else {
    Backend *b = x->backend;
    if (!x->backend_held) {
      __atomic_add_fetch(&b->active, 1, __ATOMIC_RELAXED);
      x->backend_held = 1;
    }
    u = upstream_get(c->w, NULL, &b->addr, b->addr_len, fresh, &err);
  }
  if (!u) {
    exchange_failed(c, F_CONNECT, err);
    return;
  }
  x->up = u;
  upstream_start(u, c);
}

void exchange_begin(Client *c, h1_request *h, Site *s, Route *r, int fallback) {
  Exchange *x = &c->x;
  x->site = s;
  x->fallback = fallback;
  x->upgrade = h->upgrade;
  /* A stream's body without a length is framed as chunks by h2.c as it comes (mode 3). */
  x->req_mode = h->chunked ? (c->h2_parent ? 3 : 2) : h->content_length > 0 ? 1 : 0;
  x->req_left = x->req_mode == 1 ? (uint64_t)h->content_length : 0;
  h1_chunked_init(&x->req_ch);
  x->req_parsed = x->req_done = x->req_mode == 0;
  x->repeatable = x->req_mode == 0 && idempotent(h->method.p, h->method.n);
  x->method_n = h->method.n;
  x->path_n = r->path_n;
  x->host_n = h->host.n;
  int failed = 0;
  if (fallback) failed = build_fallback(c, h);
  else {
    x->keep = malloc((size_t)x->method_n + x->path_n + x->host_n + 1);
    if (!x->keep) failed = 1;
    else {
      memcpy(x->keep, h->method.p, x->method_n);
      memcpy(x->keep + x->method_n, r->path, x->path_n);
      if (x->host_n) memcpy(x->keep + x->method_n + x->path_n, h->host.p, x->host_n);
      x->backend = pick(c, s, 0);
      failed = !x->backend || build_line(c) < 0 || build_rest(c, h) < 0;
    }
  }
  c->off += h->head_len;
  if (failed) {
    answer_plain(c, 500, "internal error\n");
    c->keep_alive = 0;
    c->state = C_ANSWER;
    return;
  }
  c->state = C_EXCHANGE;
  /* The Node path answers Expect itself; a backend never hears it (a hop-by-hop header). */
  if (!fallback && h->expect_continue && x->req_mode) out_str(c, "HTTP/1.1 100 Continue\r\n\r\n");
  exchange_connect(c, 0);
}

/* Bytes of the request body now buffered that can go: a length's, or whole chunks' as far as read. */
static int scan_body(Client *c) {
  Exchange *x = &c->x;
  if (x->req_parsed) return 0;
  uint32_t from = c->off + x->req_ready;
  uint32_t avail = c->len - from;
  if (!avail) return 0;
  if (x->req_mode == 3) {
    /* Framed by us (h2.c): all of it may go; it ends with the stream's last chunk. */
    x->req_ready += avail;
    if (c->h2_last_chunk) x->req_parsed = 1;
    return 0;
  }
  if (x->req_mode == 1) {
    uint32_t take = avail < x->req_left ? avail : (uint32_t)x->req_left;
    x->req_ready += take;
    x->req_left -= take;
    if (!x->req_left) x->req_parsed = 1;
    return 0;
  }
  size_t total = 0;
  while (total < avail) {
    size_t used = 0, dn = 0;
    const char *d = NULL;
    int rc = h1_chunked_read(&x->req_ch, c->buf + from + total, avail - total, &used, &d, &dn);
    total += used;
    if (rc == CH_BAD) return -1;
    if (rc == CH_DONE) {
      x->req_parsed = 1;
      break;
    }
    if (rc == CH_NEED) break;
  }
  x->req_ready += (uint32_t)total;
  return 0;
}

void pump_request_body(Client *c) {
  Exchange *x = &c->x;
  for (int turns = 0; turns < 64; turns++) {
    if (scan_body(c) < 0) {
      /* A body that cannot be read: the backend gets nothing more, the client a 400 if it can. */
      if (x->head_sent) {
        client_close(c);
        return;
      }
      Upstream *u = x->up;
      x->up = NULL;
      if (u) upstream_abort(u);
      exchange_release_backend(x);
      c->keep_alive = 0;
      answer_status(c, 400, 1);
      x->head_sent = 1;
      c->state = C_ANSWER;
      client_again(c);
      return;
    }
    Upstream *u = x->up;
    if (!u || u->connecting) return;
    if (upstream_flush_request(u) <= 0) return;
    if (c->state != C_EXCHANGE || x->req_parsed) return;
    if (!c->readable) return;
    int n = client_read(c);
    if (n > 0) continue;
    if (n == -1 || n == -3) return;
    client_close(c);
    return;
  }
  client_again(c);
}

/* The answer is over on both sides: the upstream connection goes back to its pool, the client on. */
void exchange_finish(Client *c) {
  Exchange *x = &c->x;
  Upstream *u = x->up;
  x->up = NULL;
  c->span_owner = NULL;
  if (u) {
    if (x->req_done && u->reusable) upstream_release(u);
    else upstream_abort(u);
  }
  if (!x->req_done) c->keep_alive = 0;
  exchange_release_backend(x);
  request_done(c);
  if (c->h2_parent) return;
  if (c->state == C_HEAD && (c->off < c->len || c->readable)) client_again(c);
  else if (c->state == C_LINGER) client_again(c);
}

void exchange_step(Client *c) {
  Exchange *x = &c->x;
  if (c->hup) {
    client_close(c);
    return;
  }
  int r = client_flush(c);
  if (r < 0) {
    client_close(c);
    return;
  }
  if (r == 1) {
    if (x->res_complete) {
      exchange_finish(c);
      return;
    }
    if (c->span_owner) {
      Upstream *o = c->span_owner;
      c->span_owner = NULL;
      upstream_resume(o);
      if (c->state != C_EXCHANGE) return;
    }
  }
  if (!x->req_parsed || x->req_ready) pump_request_body(c);
}

void exchange_failed(Client *c, int kind, int err) {
  Exchange *x = &c->x;
  x->up = NULL; /* it closed itself */
  if (kind == F_CUT || x->head_sent) {
    client_close(c);
    return;
  }
  if (x->fallback) {
    /* Node closed a kept connection between requests: another one. Otherwise it dropped the request on purpose. */
    if (kind == F_STALE && x->attempts++ < 2) exchange_connect(c, 1);
    else client_close(c);
    return;
  }
  Backend *b = x->backend;
  Proxy *p = &x->site->proxy;
  if (kind == F_STALE && x->repeatable && x->attempts++ < 2) {
    exchange_connect(c, 1);
    return;
  }
  int retryable = kind == F_CONNECT || kind == F_CONNECT_TIMEOUT || kind == F_STALE || kind == F_RESET;
  if (retryable) backend_failed(c, b, err);
  /* A refused connect never reached the backend; a reset after sending may have been acted on. */
  int again = kind == F_CONNECT || kind == F_CONNECT_TIMEOUT || idempotent(x->keep, x->method_n);
  if (x->req_mode == 0 && retryable && again && p->n > 1) {
    if (b->index < 64) x->tried |= 1ull << b->index;
    int tried = __builtin_popcountll(x->tried);
    Backend *next = tried < p->n ? pick(c, x->site, x->tried) : NULL;
    if (next) {
      exchange_release_backend(x);
      x->backend = next;
      if (build_line(c) == 0) {
        exchange_connect(c, 0);
        return;
      }
    }
  }
  exchange_release_backend(x);
  int timeout = kind == F_TIMEOUT || kind == F_CONNECT_TIMEOUT;
  if (!x->req_done) c->keep_alive = 0;
  answer_plain(c, timeout ? 504 : 502, timeout ? "gateway timeout\n" : "bad gateway\n");
  x->head_sent = 1;
  c->state = C_ANSWER;
  client_again(c);
}

void exchange_interim(Client *c, int status) {
  /* Only the Node path's 100 Continue reaches the client: it answered the client's Expect. */
  if (c->x.fallback && status == 100) {
    out_str(c, "HTTP/1.1 100 Continue\r\n\r\n");
    if (client_flush(c) < 0) client_close(c);
  }
}

static int response_hop(h1_str n) {
  switch (n.n) {
    case 7: return h1_is(n, "upgrade");
    case 10: return h1_is(n, "connection") || h1_is(n, "keep-alive");
    case 16: return h1_is(n, "proxy-connection");
    case 17: return h1_is(n, "transfer-encoding");
  }
  return 0;
}

void exchange_head(Client *c, Upstream *u, h1_response *res) {
  (void)u;
  Exchange *x = &c->x;
  x->head_seen = 1;
  x->status = res->status;
  Proxy *p = x->fallback ? NULL : &x->site->proxy;
  if (p) backend_ok(x->backend);
  if (c->is_head || res->status == 204 || res->status == 304) x->res_mode = 0;
  else if (res->chunked) x->res_mode = 2;
  else if (res->content_length >= 0) {
    x->res_mode = res->content_length ? 1 : 0;
    x->res_left = (uint64_t)res->content_length;
  } else x->res_mode = c->keep_alive && c->http11 ? 3 : 4;
  h1_chunked_init(&x->res_ch);
#ifdef EDGE_H2
  if (c->h2_parent) {
    /* A stream ends by itself: a body that runs to the close needs no framing. */
    if (x->res_mode == 3) x->res_mode = 4;
    h2_stream_head(c, res, p, x->res_mode != 0);
    x->head_sent = 1;
    return;
  }
#endif
  /* The Node server closes after this answer: so does the client's connection. */
  if (x->res_mode == 4 || (x->fallback && res->close)) c->keep_alive = 0;
  out_status(c, res->status);
  int has_date = 0;
  for (int i = 0; i < res->nheaders; i++) {
    h1_header *k = &res->headers[i];
    if (response_hop(k->name)) continue;
    if (k->name.n == 4 && h1_is(k->name, "date")) has_date = 1;
    if (p && p->nres && custom_has(p->res_headers, p->nres, k->name.p, k->name.n)) continue;
    out_header(c, k->name.p, k->name.n, k->value.p, k->value.n);
  }
  if (p)
    for (int i = 0; i < p->nres; i++)
      if (p->res_headers[i].value_len) out_header(c, p->res_headers[i].name, p->res_headers[i].name_len, p->res_headers[i].value, p->res_headers[i].value_len);
  if (!has_date) {
    uint32_t dn;
    const char *d = worker_date(c->w, &dn);
    out_put(c, d, dn);
  }
  if (x->res_mode == 2 || x->res_mode == 3) out_str(c, "Transfer-Encoding: chunked\r\n");
  out_str(c, c->keep_alive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n");
  x->head_sent = 1;
  c->deadline = 0;
}

int exchange_body(Client *c, Upstream *u, const char *p, uint32_t n, int last) {
  Exchange *x = &c->x;
#ifdef EDGE_H2
  if (c->h2_parent) {
    x->res_bytes += n;
    return h2_stream_body(c, u, p, n, last);
  }
#endif
  if (x->res_mode == 3) {
    /* A body that runs to the close, re-framed so that the client's connection can stay. */
    if (n) {
      char size[20];
      int k = snprintf(size, sizeof size, "%x\r\n", n);
      out_put(c, size, (uint32_t)k);
      memcpy(c->tail, "\r\n", 2);
      c->tail_len = 2;
    }
    if (last) {
      memcpy(c->tail + c->tail_len, "0\r\n\r\n", 5);
      c->tail_len += 5;
    }
  }
  c->span = p;
  c->span_len = n;
  x->res_bytes += n;
  int r = client_flush(c);
  if (r < 0) {
    client_close(c);
    return -1;
  }
  if (r == 0) {
    c->span_owner = u;
    if (!c->deadline) c->deadline = c->w->now + EDGE_REQUEST_TIMEOUT_MS;
    return 0;
  }
  return 1;
}

void exchange_done(Client *c) {
  Exchange *x = &c->x;
  x->res_complete = 1;
#ifdef EDGE_H2
  if (c->h2_parent) {
    h2_stream_done(c);
    /* The upstream's buffer may still hold the last DATA nghttp2 has not taken: finished once it has. */
    if (!c->span_len) exchange_finish(c);
    return;
  }
#endif
  int r = client_flush(c);
  if (r < 0) client_close(c);
  else if (r == 1) exchange_finish(c);
}

void exchange_upgraded(Client *c, Upstream *u, h1_response *res) {
  Exchange *x = &c->x;
  x->head_seen = 1;
  x->head_sent = 1;
  x->status = 101;
  if (!x->fallback) backend_ok(x->backend);
#ifdef EDGE_H2
  if (c->h2_parent) {
    h2_stream_upgraded(c, res);
    request_count(c, 101);
    c->state = C_TUNNEL;
    u->deadline = 0;
    client_again(c);
    return;
  }
#endif
  /* The backend's 101 as it wrote it: its Connection and Upgrade are this very hop's. */
  out_status(c, 101);
  for (int i = 0; i < res->nheaders; i++) out_header(c, res->headers[i].name.p, res->headers[i].name.n, res->headers[i].value.p, res->headers[i].value.n);
  out_str(c, "\r\n");
  request_count(c, 101);
  c->state = C_TUNNEL;
  u->deadline = 0;
  int64_t idle = x->fallback ? 0 : x->site->proxy.ws_idle_ms;
  c->tunnel_idle_ms = idle;
  c->deadline = idle ? c->w->now + idle : 0;
  tunnel_step(c);
}
