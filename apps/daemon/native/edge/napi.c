/*
 * The edge's JavaScript API (N-API), called from the main thread only (web.edge.ts):
 *   edgeStart(threads, onEvent) -> threads      the threads, once (edgeStop ends them, with no rule left)
 *     onEvent(kind, ruleId, a, b, c)            1: adopt socket a; 2: backend down (site a, backend b, errno c);
 *                                               3: the rule is removed from every thread (edgeFree it now)
 *   edgeAdd(fd, table) -> ruleId                serve a listening socket (the edge owns it from now on)
 *   edgeApply(ruleId, table)                    a new table; requests under way finish with theirs
 *   edgeRemove(ruleId, graceMs)                 stop accepting; idle clients close, busy ones after their answer
 *   edgeFree(ruleId)                            after event 3: closes the socket, frees the rule
 *   edgeFigures(ruleId) -> [requests, native, fallback, bytesIn, bytesOut, connections, [code, n, ...],
 *                           [requests per duration bucket..., past the last, seconds in all]]
 *   edgeLog(ruleId, limit) -> [[time, ip, method, host, path, status, bytes, ms, userAgent, sub], ...] oldest first
 *   edgeHealth(ruleId, site, backend, healthy)  an active health check's verdict
 *   edgeAuthorized(ruleId, site, header, ms)    Node verified this Authorization header: the edge accepts it for ms
 *   edgeOcsp(ruleId, cert, der | null)          the OCSP response stapled for the rule's certificate `cert`
 *   ocspRequest(certPem, issuerPem) -> Buffer | null      the DER of an OCSP request for a certificate
 *   ocspCheck(der, certPem, issuerPem) -> [status, nextUpdateMs]  0 good, 1 revoked, 2 unknown, -1 not a valid answer
 *   edgeTicketRotation(ms)                      how long a session ticket key seals (it opens for twice that); 0: 12 hours
 * The table object is web.edgetable.ts's EdgeTable; a malformed one throws and changes nothing.
 */
#define NAPI_VERSION 8
#include <node_api.h>

#include "edge.h"
#include "log.h"
#include "auth.h"
#include "limit.h"
#include "ocsp.h"
#include "ticketkeys.h"
#include "tls.h"

#include <openssl/crypto.h>

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int worker_start(Worker *w, int index);
void worker_join(Worker *w);

typedef struct {
  int kind, a, b, c;
  uint32_t rule;
} Event;
enum { E_ADOPT = 1, E_DOWN = 2, E_REMOVED = 3 };

static napi_threadsafe_function events = NULL;
static Rule **rules = NULL;
static uint32_t nrules = 0;

static void call_js(napi_env env, napi_value fn, void *ctx, void *data) {
  (void)ctx;
  Event *e = data;
  if (env && fn) {
    napi_value argv[5], undef;
    napi_create_int32(env, e->kind, &argv[0]);
    napi_create_uint32(env, e->rule, &argv[1]);
    napi_create_int32(env, e->a, &argv[2]);
    napi_create_int32(env, e->b, &argv[3]);
    napi_create_int32(env, e->c, &argv[4]);
    napi_get_undefined(env, &undef);
    napi_call_function(env, undef, fn, 5, argv, NULL);
  } else if (e->kind == E_ADOPT) {
    close(e->a); /* Node is going away: nobody will adopt it */
  }
  free(e);
}

static int emit(int kind, Rule *r, int a, int b, int c) {
  if (!events) return -1;
  Event *e = malloc(sizeof *e);
  if (!e) return -1;
  *e = (Event){.kind = kind, .rule = r->id, .a = a, .b = b, .c = c};
  if (napi_call_threadsafe_function(events, e, napi_tsfn_nonblocking) != napi_ok) {
    free(e);
    return -1;
  }
  return 0;
}

int edge_emit_adopt(Rule *r, int fd) { return emit(E_ADOPT, r, fd, 0, 0); }
void edge_emit_backend_down(Rule *r, int site, Backend *b, int err) { emit(E_DOWN, r, site, b->index, err); }
void edge_emit_removed(Rule *r) { emit(E_REMOVED, r, 0, 0, 0); }

/* ------------------------------------------------------------------ reading the table object */

static napi_value throw_msg(napi_env env, const char *msg) {
  napi_throw_error(env, NULL, msg);
  return NULL;
}

static int prop(napi_env env, napi_value obj, const char *key, napi_value *out) {
  bool has = false;
  if (napi_has_named_property(env, obj, key, &has) != napi_ok || !has) return 0;
  return napi_get_named_property(env, obj, key, out) == napi_ok;
}

static int64_t num(napi_env env, napi_value obj, const char *key, int64_t def) {
  napi_value v;
  int64_t out = def;
  if (prop(env, obj, key, &v)) napi_get_value_int64(env, v, &out);
  return out;
}

static int flag(napi_env env, napi_value obj, const char *key) {
  napi_value v;
  bool b = false;
  if (prop(env, obj, key, &v)) napi_get_value_bool(env, v, &b);
  return b;
}

/* A string's UTF-8 bytes, copied and NUL-terminated; NULL when not a string. */
static char *string_of(napi_env env, napi_value v, uint32_t *len) {
  napi_valuetype t;
  if (napi_typeof(env, v, &t) != napi_ok || t != napi_string) return NULL;
  size_t n = 0;
  napi_get_value_string_utf8(env, v, NULL, 0, &n);
  char *s = malloc(n + 1);
  if (!s) return NULL;
  napi_get_value_string_utf8(env, v, s, n + 1, &n);
  if (len) *len = (uint32_t)n;
  return s;
}

static char *str(napi_env env, napi_value obj, const char *key, uint32_t *len) {
  napi_value v;
  if (len) *len = 0;
  return prop(env, obj, key, &v) ? string_of(env, v, len) : NULL;
}

static int array(napi_env env, napi_value obj, const char *key, napi_value *arr, uint32_t *n) {
  bool is = false;
  *n = 0;
  if (!prop(env, obj, key, arr) || napi_is_array(env, *arr, &is) != napi_ok || !is) return 0;
  return napi_get_array_length(env, *arr, n) == napi_ok;
}

static napi_value at(napi_env env, napi_value arr, uint32_t i) {
  napi_value v = NULL;
  napi_get_element(env, arr, i, &v);
  return v;
}

static int cidrs(napi_env env, napi_value obj, const char *key, Cidr **out, int *n) {
  napi_value v;
  bool is = false;
  *out = NULL;
  *n = 0;
  if (!prop(env, obj, key, &v) || napi_is_buffer(env, v, &is) != napi_ok || !is) return 0;
  void *data;
  size_t len;
  napi_get_buffer_info(env, v, &data, &len);
  if (len % 18) return 0;
  *n = (int)(len / 18);
  if (*n == 0) return 1;
  *out = calloc((size_t)*n, sizeof **out);
  if (!*out) return 0;
  const uint8_t *b = data;
  for (int i = 0; i < *n; i++) {
    (*out)[i].family = b[i * 18];
    (*out)[i].bits = b[i * 18 + 1];
    memcpy((*out)[i].addr, b + i * 18 + 2, 16);
  }
  return 1;
}

static int template_of(napi_env env, napi_value obj, const char *key, Template *t) {
  napi_value arr;
  uint32_t n;
  if (!array(env, obj, key, &arr, &n)) return 0;
  t->n = 0;
  t->pieces = n ? calloc(n, sizeof *t->pieces) : NULL;
  if (n && !t->pieces) return 0;
  for (uint32_t i = 0; i < n; i++) {
    napi_value v = at(env, arr, i);
    napi_valuetype ty;
    napi_typeof(env, v, &ty);
    Piece *p = &t->pieces[t->n++];
    if (ty == napi_number) {
      int32_t var = 0;
      napi_get_value_int32(env, v, &var);
      if (var < 0 || var >= V_COUNT) return 0;
      p->var = var;
    } else {
      p->var = -1;
      p->p = string_of(env, v, &p->n);
      if (!p->p) return 0;
    }
  }
  return 1;
}

/*
 * A flat [a, b, a, b...] array: its pairs allocated (`size` bytes each) in *out. -1 when malformed
 * (or missing and `required`), else the number of pairs.
 */
static int pairs_of(napi_env env, napi_value obj, const char *key, int required, size_t size, void **out, napi_value *arr) {
  uint32_t n;
  *out = NULL;
  if (!array(env, obj, key, arr, &n)) return required ? -1 : 0;
  if (n % 2) return -1;
  if (!n) return 0;
  if (!(*out = calloc(n / 2, size))) return -1;
  return (int)(n / 2);
}

static int headers_of(napi_env env, napi_value obj, const char *key, Hdr **out, int *count) {
  napi_value arr;
  *count = 0;
  int n = pairs_of(env, obj, key, 0, sizeof **out, (void **)out, &arr);
  if (n < 0) return 0;
  for (uint32_t i = 0; i < (uint32_t)n * 2; i += 2) {
    Hdr *h = &(*out)[(*count)++];
    h->name = string_of(env, at(env, arr, i), &h->name_len);
    h->value = string_of(env, at(env, arr, i + 1), &h->value_len);
    if (!h->name || !h->value) return 0;
  }
  return 1;
}

static int backend_of(napi_env env, napi_value v, Backend *b, int index) {
  b->index = index;
  b->healthy = flag(env, v, "healthy");
  int family = (int)num(env, v, "family", 4);
  int port = (int)num(env, v, "port", 0);
  uint32_t n;
  char *addr = str(env, v, "address", &n);
  if (!addr) return 0;
  int ok;
  if (family == 6) {
    struct sockaddr_in6 *s = (struct sockaddr_in6 *)&b->addr;
    s->sin6_family = AF_INET6;
    s->sin6_port = htons((uint16_t)port);
    ok = inet_pton(AF_INET6, addr, &s->sin6_addr) == 1;
    b->addr_len = sizeof *s;
  } else {
    struct sockaddr_in *s = (struct sockaddr_in *)&b->addr;
    s->sin_family = AF_INET;
    s->sin_port = htons((uint16_t)port);
    ok = inet_pton(AF_INET, addr, &s->sin_addr) == 1;
    b->addr_len = sizeof *s;
  }
  free(addr);
  b->host = str(env, v, "host", &b->host_len);
  b->base = str(env, v, "base", &b->base_len);
  b->url = str(env, v, "url", NULL);
  return ok && b->host && b->base && b->url;
}

static int site_of(napi_env env, napi_value v, Site *s) {
  s->name = str(env, v, "name", &s->name_len);
  if (!s->name) return 0;
  s->type = (int)num(env, v, "type", 0);
  if (s->type < SVC_PROXY || s->type > SVC_FALLBACK) return 0;
  s->auth = flag(env, v, "auth");
  if (s->auth && !(s->authorized = auth_new())) return 0;
  s->portal = flag(env, v, "portal");
  if (s->portal) {
    s->user_header = str(env, v, "userHeader", &s->user_header_len);
    if (!s->user_header || !(s->sessions = auth_new())) return 0;
  }
  s->cors = flag(env, v, "cors");
  napi_value arr;
  uint32_t n;
  if (array(env, v, "ip", &arr, &n) && n) {
    s->ip = calloc(n, sizeof *s->ip);
    if (!s->ip) return 0;
    for (uint32_t i = 0; i < n; i++) {
      napi_value f = at(env, arr, i);
      s->ip[s->nip].whitelist = flag(env, f, "whitelist");
      if (!cidrs(env, f, "cidrs", &s->ip[s->nip].list, &s->ip[s->nip].n)) return 0;
      s->nip++;
    }
  }
  if (array(env, v, "ua", &arr, &n) && n) {
    s->ua = calloc(n, sizeof *s->ua);
    if (!s->ua) return 0;
    for (uint32_t i = 0; i < n; i++) {
      napi_value f = at(env, arr, i), list;
      UaFilter *u = &s->ua[s->nua++];
      u->whitelist = flag(env, f, "whitelist");
      uint32_t k;
      if (!array(env, f, "list", &list, &k)) return 0;
      u->list = calloc(k ? k : 1, sizeof *u->list);
      u->lens = calloc(k ? k : 1, sizeof *u->lens);
      if (!u->list || !u->lens) return 0;
      for (uint32_t j = 0; j < k; j++) {
        u->list[u->n] = string_of(env, at(env, list, j), &u->lens[u->n]);
        if (!u->list[u->n]) return 0;
        u->n++;
      }
    }
  }
  s->robots = str(env, v, "robots", &s->robots_len);
  switch (s->type) {
    case SVC_PROXY: {
      Proxy *p = &s->proxy;
      if (!array(env, v, "backends", &arr, &n) || n == 0) return 0;
      p->backends = calloc(n, sizeof *p->backends);
      if (!p->backends) return 0;
      for (uint32_t i = 0; i < n; i++) {
        if (!backend_of(env, at(env, arr, i), &p->backends[i], (int)i)) return 0;
        p->n++;
      }
      p->balance = (int)num(env, v, "balance", BAL_RR);
      p->max_fails = (int)num(env, v, "maxFails", 1);
      p->fail_timeout_ms = num(env, v, "failTimeoutMs", 10000);
      p->timeout_ms = num(env, v, "timeoutMs", 60000);
      p->use_request_host = flag(env, v, "useRequestHost");
      p->forwarded = flag(env, v, "forwarded");
      p->websocket = flag(env, v, "websocket");
      p->ws_idle_ms = num(env, v, "wsIdleMs", 0);
      if (!headers_of(env, v, "reqHeaders", &p->req_headers, &p->nreq)) return 0;
      if (!headers_of(env, v, "resHeaders", &p->res_headers, &p->nres)) return 0;
      break;
    }
    case SVC_TEXT:
      s->status = (int)num(env, v, "status", 200);
      s->content_type = str(env, v, "contentType", &s->content_type_len);
      if (!s->content_type || !template_of(env, v, "body", &s->body)) return 0;
      break;
    case SVC_REDIRECT:
      s->code = (int)num(env, v, "code", 302);
      if (!template_of(env, v, "body", &s->body)) return 0;
      break;
    case SVC_JUMP:
      if (!template_of(env, v, "body", &s->body)) return 0;
      break;
  }
  return 1;
}

static int cmp_host(const void *a, const void *b) {
  const HostEntry *x = a, *y = b;
  uint32_t m = x->len < y->len ? x->len : y->len;
  int c = memcmp(x->name, y->name, m);
  return c ? c : (x->len < y->len ? -1 : x->len > y->len);
}

static int cmp_longest(const void *a, const void *b) {
  const HostEntry *x = a, *y = b;
  return x->len > y->len ? -1 : x->len < y->len;
}

static int hosts_of(napi_env env, napi_value obj, const char *key, HostEntry **out, int *count, int nsites) {
  napi_value arr;
  *count = 0;
  int n = pairs_of(env, obj, key, 1, sizeof **out, (void **)out, &arr);
  if (n < 0) return 0;
  for (uint32_t i = 0; i < (uint32_t)n * 2; i += 2) {
    HostEntry *e = &(*out)[(*count)++];
    e->name = string_of(env, at(env, arr, i), &e->len);
    int32_t site = -1;
    napi_get_value_int32(env, at(env, arr, i + 1), &site);
    if (!e->name || site < 0 || site >= nsites) return 0;
    e->site = site;
  }
  return 1;
}

/* The table's `tlsConf`: { minVersion, h2, certs: [{ cert, key, names }] } (the certificates already checked by JavaScript). */
static int tls_of(napi_env env, napi_value obj, Table *t, char *err, size_t errlen) {
  napi_value v, certs;
  uint32_t n;
  napi_valuetype ty;
  if (!prop(env, obj, "tlsConf", &v) || napi_typeof(env, v, &ty) != napi_ok || ty != napi_object) return 1;
  if (!array(env, v, "certs", &certs, &n) || n == 0) return snprintf(err, errlen, "no certificate"), 0;
  t->tls_conf = tls_conf_new((int)num(env, v, "minVersion", 0x0303), flag(env, v, "h2"), err, errlen);
  if (!t->tls_conf) return 0;
  for (uint32_t i = 0; i < n; i++) {
    napi_value c = at(env, certs, i), list;
    uint32_t cl = 0, kl = 0, k = 0;
    char *cert = str(env, c, "cert", &cl), *key = str(env, c, "key", &kl);
    array(env, c, "names", &list, &k);
    char **names = calloc(k ? k : 1, sizeof *names);
    uint32_t *lens = calloc(k ? k : 1, sizeof *lens);
    int ok = cert && key && names && lens;
    for (uint32_t j = 0; ok && j < k; j++) ok = (names[j] = string_of(env, at(env, list, j), &lens[j])) != NULL;
    ok = ok && tls_conf_add(t->tls_conf, cert, cl, key, kl, names, lens, (int)k, err, errlen) == 0;
    for (uint32_t j = 0; names && j < k; j++) free(names[j]);
    free(names);
    free(lens);
    if (key) OPENSSL_cleanse(key, kl);
    free(cert);
    free(key);
    if (!ok) return 0;
  }
  tls_conf_ready(t->tls_conf);
  return 1;
}

static Table *table_of(napi_env env, napi_value v, char *err, size_t errlen) {
  Table *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->tls = flag(env, v, "tls");
  t->port = (int)num(env, v, "port", 0);
  t->challenges = flag(env, v, "challenges");
  t->log_capacity = (uint32_t)num(env, v, "logCapacity", 0);
  t->limit_per_ms = (int64_t)num(env, v, "limitPerMs", 0);
  t->limit_cap = (int64_t)num(env, v, "limitCap", 0);
  t->limit_conns = (int)num(env, v, "limitConnections", 0);
  t->max_body = (uint64_t)num(env, v, "maxBody", 0);
  napi_value arr;
  uint32_t n;
  int ok = cidrs(env, v, "trusted", &t->trusted, &t->ntrusted) && array(env, v, "sites", &arr, &n) && n > 0;
  if (ok) {
    t->sites = calloc(n, sizeof *t->sites);
    ok = t->sites != NULL;
    for (uint32_t i = 0; ok && i < n; i++) {
      ok = site_of(env, at(env, arr, i), &t->sites[i]);
      t->nsites++;
    }
  }
  ok = ok && hosts_of(env, v, "exact", &t->exact, &t->nexact, t->nsites) && hosts_of(env, v, "wild", &t->wild, &t->nwild, t->nsites);
  ok = ok && tls_of(env, v, t, err, errlen);
  if (!ok) {
    table_free(t);
    return NULL;
  }
  qsort(t->exact, (size_t)t->nexact, sizeof *t->exact, cmp_host);
  /* Equal lengths keep JavaScript's order (the first sub rule wins): qsort is not stable, so ties are broken by position. */
  for (int i = 1; i < t->nwild; i++) {
    HostEntry e = t->wild[i];
    int j = i - 1;
    while (j >= 0 && cmp_longest(&t->wild[j], &e) > 0) {
      t->wild[j + 1] = t->wild[j];
      j--;
    }
    t->wild[j + 1] = e;
  }
  return t;
}

/* ------------------------------------------------------------------ the API */

static int args(napi_env env, napi_callback_info info, size_t want, napi_value *argv) {
  size_t n = want;
  if (napi_get_cb_info(env, info, &n, argv, NULL, NULL) != napi_ok || n < want) {
    napi_throw_type_error(env, NULL, "missing arguments");
    return 0;
  }
  return 1;
}

static Rule *rule_arg(napi_env env, napi_value v) {
  uint32_t id = 0;
  napi_get_value_uint32(env, v, &id);
  if (id == 0 || id > nrules || !rules[id - 1]) {
    napi_throw_error(env, NULL, "no such edge rule");
    return NULL;
  }
  return rules[id - 1];
}

static napi_value number(napi_env env, double d) {
  napi_value v;
  napi_create_double(env, d, &v);
  return v;
}

static napi_value js_start(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  if (!args(env, info, 2, argv)) return NULL;
  if (edge_workers > 0) return number(env, edge_workers);
  int32_t n = 1;
  napi_get_value_int32(env, argv[0], &n);
  if (n < 1) n = 1;
  if (n > EDGE_MAX_WORKERS) n = EDGE_MAX_WORKERS;
  napi_value name;
  napi_create_string_utf8(env, "lucky-edge", NAPI_AUTO_LENGTH, &name);
  if (napi_create_threadsafe_function(env, argv[1], NULL, name, 0, 1, NULL, NULL, NULL, call_js, &events) != napi_ok) return throw_msg(env, "edge: no event queue");
  /* The daemon's life is not the edge's to decide: events do not keep Node running. */
  napi_unref_threadsafe_function(env, events);
  for (int i = 0; i < n; i++) {
    if (worker_start(&edge_w[i], i) < 0) {
      for (int k = 0; k < i; k++) worker_join(&edge_w[k]);
      napi_release_threadsafe_function(events, napi_tsfn_abort);
      events = NULL;
      return throw_msg(env, "edge: could not start its threads");
    }
    edge_workers = i + 1;
  }
  return number(env, edge_workers);
}

static napi_value js_stop(napi_env env, napi_callback_info info) {
  (void)info;
  for (uint32_t i = 0; i < nrules; i++)
    if (rules[i]) return throw_msg(env, "edge: rules still served");
  for (int i = 0; i < edge_workers; i++) worker_join(&edge_w[i]);
  edge_workers = 0;
  if (events) napi_release_threadsafe_function(events, napi_tsfn_release);
  events = NULL;
  return NULL;
}

static void post_all(int op, Rule *r, Table *t) {
  for (int i = 0; i < edge_workers; i++) {
    Cmd *c = calloc(1, sizeof *c);
    c->op = op;
    c->rule = r;
    c->table = t;
    worker_post(&edge_w[i], c);
  }
}

static int needs_limiter(const Table *t) { return t->limit_per_ms > 0 || t->limit_conns > 0; }

static napi_value js_add(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  if (!args(env, info, 2, argv)) return NULL;
  if (edge_workers == 0) return throw_msg(env, "edge: not started");
  int32_t fd = -1;
  napi_get_value_int32(env, argv[0], &fd);
  if (fd < 0) return throw_msg(env, "edge: bad socket");
  char err[300] = "malformed table";
  Table *t = table_of(env, argv[1], err, sizeof err);
  if (!t) return throw_msg(env, err);
  Rule *r = calloc(1, sizeof *r);
  if (!r) {
    table_free(t);
    return throw_msg(env, "edge: out of memory");
  }
  r->ev.kind = EV_LISTEN;
  r->fd = fd;
  if (needs_limiter(t)) r->limiter = limit_new();
  for (int i = 0; i < edge_workers; i++) r->stats[i] = calloc(1, sizeof(Stats));
  log_init(&r->log, t->log_capacity);
  t->refs = 1 + edge_workers;
  r->latest = t;
  Rule **grown = realloc(rules, sizeof *rules * (nrules + 1));
  if (!grown) {
    free(r);
    table_free(t);
    return throw_msg(env, "edge: out of memory");
  }
  rules = grown;
  rules[nrules++] = r;
  r->id = nrules;
  post_all(CMD_ADD, r, t);
  return number(env, r->id);
}

static napi_value js_apply(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  if (!args(env, info, 2, argv)) return NULL;
  Rule *r = rule_arg(env, argv[0]);
  if (!r) return NULL;
  char err[300] = "malformed table";
  Table *t = table_of(env, argv[1], err, sizeof err);
  if (!t) return throw_msg(env, err);
  t->refs = 1 + edge_workers;
  /* Before the threads see the table: they find the rule's Limiter there. */
  if (needs_limiter(t) && !r->limiter) r->limiter = limit_new();
  Table *old = r->latest;
  r->latest = t;
  log_resize(&r->log, t->log_capacity);
  post_all(CMD_SWAP, r, t);
  table_unref(old);
  return NULL;
}

static napi_value js_remove(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  if (!args(env, info, 2, argv)) return NULL;
  Rule *r = rule_arg(env, argv[0]);
  if (!r) return NULL;
  if (r->removing) return NULL;
  int64_t grace = 0;
  napi_get_value_int64(env, argv[1], &grace);
  r->grace_until = edge_now_ms() + grace;
  r->removing = 1;
  post_all(CMD_REMOVE, r, NULL);
  return NULL;
}

static napi_value js_free(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!args(env, info, 1, argv)) return NULL;
  Rule *r = rule_arg(env, argv[0]);
  if (!r) return NULL;
  if (r->workers_done < edge_workers) return throw_msg(env, "edge: rule still served");
  rules[r->id - 1] = NULL;
  close(r->fd);
  log_destroy(&r->log);
  for (int i = 0; i < EDGE_MAX_WORKERS; i++) free(r->stats[i]);
  table_unref(r->latest);
  limit_free(r->limiter);
  free(r);
  return NULL;
}

static napi_value js_figures(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!args(env, info, 1, argv)) return NULL;
  Rule *r = rule_arg(env, argv[0]);
  if (!r) return NULL;
  Stats sum;
  memset(&sum, 0, sizeof sum);
  for (int i = 0; i < edge_workers; i++) {
    Stats *s = r->stats[i];
    if (!s) continue;
    sum.requests += s->requests;
    sum.native += s->native;
    sum.fallback += s->fallback;
    sum.bytes_in += s->bytes_in;
    sum.bytes_out += s->bytes_out;
    sum.connections += s->connections;
    for (int k = 0; k < 600; k++) sum.codes[k] += s->codes[k];
    for (int k = 0; k <= EDGE_DUR_BUCKETS; k++) sum.dur[k] += s->dur[k];
    sum.dur_us += s->dur_us;
  }
  napi_value out, codes, dur;
  napi_create_array_with_length(env, 8, &out);
  napi_create_array(env, &codes);
  uint32_t n = 0;
  for (int k = 0; k < 600; k++) {
    if (!sum.codes[k]) continue;
    napi_set_element(env, codes, n++, number(env, k));
    napi_set_element(env, codes, n++, number(env, (double)sum.codes[k]));
  }
  double f[6] = {(double)sum.requests, (double)sum.native, (double)sum.fallback, (double)sum.bytes_in, (double)sum.bytes_out, (double)(sum.connections > 0 ? sum.connections : 0)};
  for (uint32_t i = 0; i < 6; i++) napi_set_element(env, out, i, number(env, f[i]));
  napi_set_element(env, out, 6, codes);
  napi_create_array_with_length(env, EDGE_DUR_BUCKETS + 2, &dur);
  for (int k = 0; k <= EDGE_DUR_BUCKETS; k++) napi_set_element(env, dur, (uint32_t)k, number(env, (double)sum.dur[k]));
  napi_set_element(env, dur, EDGE_DUR_BUCKETS + 1, number(env, (double)sum.dur_us / 1e6));
  napi_set_element(env, out, 7, dur);
  return out;
}

static napi_value text(napi_env env, const char *p, uint32_t n) {
  napi_value v;
  napi_create_string_utf8(env, p, n, &v);
  return v;
}

static napi_value js_log(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  if (!args(env, info, 2, argv)) return NULL;
  Rule *r = rule_arg(env, argv[0]);
  if (!r) return NULL;
  uint32_t limit = 0;
  napi_get_value_uint32(env, argv[1], &limit);
  AccessLog *l = &r->log;
  napi_value out;
  pthread_mutex_lock(&l->lock);
  uint32_t n = limit < l->size ? limit : l->size;
  napi_create_array_with_length(env, n, &out);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t idx = (l->head + l->capacity - n + i) % l->capacity;
    LogEntry *e = l->ring[idx];
    napi_value row;
    napi_create_array_with_length(env, 10, &row);
    const char *t = e->text;
    napi_set_element(env, row, 0, number(env, e->time));
    napi_set_element(env, row, 1, text(env, t, e->ip_len));
    t += e->ip_len;
    napi_set_element(env, row, 2, text(env, t, e->method_len));
    t += e->method_len;
    napi_set_element(env, row, 3, text(env, t, e->host_len));
    t += e->host_len;
    napi_set_element(env, row, 4, text(env, t, e->path_len));
    t += e->path_len;
    napi_set_element(env, row, 5, number(env, e->status));
    napi_set_element(env, row, 6, number(env, (double)e->bytes));
    napi_set_element(env, row, 7, number(env, e->ms));
    napi_set_element(env, row, 8, text(env, t, e->ua_len));
    t += e->ua_len;
    napi_set_element(env, row, 9, text(env, t, e->sub_len));
    napi_set_element(env, out, i, row);
  }
  napi_value total;
  napi_create_uint32(env, l->size, &total);
  pthread_mutex_unlock(&l->lock);
  napi_value both;
  napi_create_array_with_length(env, 2, &both);
  napi_set_element(env, both, 0, out);
  napi_set_element(env, both, 1, total);
  return both;
}

static napi_value js_health(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  if (!args(env, info, 4, argv)) return NULL;
  Rule *r = rule_arg(env, argv[0]);
  if (!r) return NULL;
  int32_t site = -1, backend = -1;
  bool healthy = true;
  napi_get_value_int32(env, argv[1], &site);
  napi_get_value_int32(env, argv[2], &backend);
  napi_get_value_bool(env, argv[3], &healthy);
  Table *t = r->latest;
  if (site < 0 || site >= t->nsites || t->sites[site].type != SVC_PROXY || backend < 0 || backend >= t->sites[site].proxy.n) return NULL;
  Backend *b = &t->sites[site].proxy.backends[backend];
  b->healthy = healthy;
  if (healthy) {
    b->fails = 0;
    b->down_until = 0;
  }
  return NULL;
}

/* The credentials a site keeps (basic auth's headers, or the portal's sessions); NULL when it keeps none. */
static AuthCache *site_cache(napi_env env, napi_value rule, napi_value site_v, int sessions) {
  Rule *r = rule_arg(env, rule);
  if (!r) return NULL;
  int32_t site = -1;
  napi_get_value_int32(env, site_v, &site);
  Table *t = r->latest;
  if (site < 0 || site >= t->nsites) return NULL;
  return sessions ? t->sites[site].sessions : t->sites[site].authorized;
}

/* An Authorization header Node verified for a site: (rule, site, header, ms). */
static napi_value js_authorized(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  if (!args(env, info, 4, argv)) return NULL;
  AuthCache *cache = site_cache(env, argv[0], argv[1], 0);
  if (!cache) return NULL;
  int64_t ms = 0;
  napi_get_value_int64(env, argv[3], &ms);
  uint32_t len = 0;
  char *header = string_of(env, argv[2], &len);
  if (header) auth_add(cache, header, len, edge_now_ms() + ms, NULL, 0);
  free(header);
  return NULL;
}

/* A portal session Node checked and allowed for a site: (rule, site, token, ms, user). */
static napi_value js_session(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  if (!args(env, info, 5, argv)) return NULL;
  AuthCache *cache = site_cache(env, argv[0], argv[1], 1);
  if (!cache) return NULL;
  int64_t ms = 0;
  napi_get_value_int64(env, argv[3], &ms);
  uint32_t len = 0, user_len = 0;
  char *token = string_of(env, argv[2], &len);
  char *user = string_of(env, argv[4], &user_len);
  if (token && user) auth_add(cache, token, len, edge_now_ms() + ms, user, user_len);
  free(token);
  free(user);
  return NULL;
}

/* Sessions ended or users changed: every site of the rule asks Node again. */
static napi_value js_forget_sessions(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!args(env, info, 1, argv)) return NULL;
  Rule *r = rule_arg(env, argv[0]);
  if (!r) return NULL;
  Table *t = r->latest;
  for (int i = 0; i < t->nsites; i++) auth_clear(t->sites[i].sessions);
  return NULL;
}

static napi_value js_ocsp(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  if (!args(env, info, 3, argv)) return NULL;
  Rule *r = rule_arg(env, argv[0]);
  if (!r) return NULL;
  int32_t cert = -1;
  napi_get_value_int32(env, argv[1], &cert);
  void *data = NULL;
  size_t len = 0;
  bool is = false;
  if (napi_is_buffer(env, argv[2], &is) == napi_ok && is) napi_get_buffer_info(env, argv[2], &data, &len);
  if (!r->latest->tls_conf || tls_conf_ocsp_set(r->latest->tls_conf, cert, data, len) < 0) return throw_msg(env, "edge: no such certificate");
  return NULL;
}

static napi_value js_ocsp_request(napi_env env, napi_callback_info info) {
  napi_value argv[2], out;
  if (!args(env, info, 2, argv)) return NULL;
  uint32_t cl = 0, il = 0;
  char *cert = string_of(env, argv[0], &cl), *issuer = string_of(env, argv[1], &il);
  unsigned char *der = NULL;
  int n = cert && issuer ? ocsp_request(cert, cl, issuer, il, &der) : -1;
  free(cert);
  free(issuer);
  if (n < 0) {
    napi_get_null(env, &out);
    return out;
  }
  napi_create_buffer_copy(env, (size_t)n, der, NULL, &out);
  OPENSSL_free(der);
  return out;
}

static napi_value js_ocsp_check(napi_env env, napi_callback_info info) {
  napi_value argv[3], out;
  if (!args(env, info, 3, argv)) return NULL;
  void *data = NULL;
  size_t len = 0;
  bool is = false;
  if (napi_is_buffer(env, argv[0], &is) != napi_ok || !is) return throw_msg(env, "ocspCheck: a Buffer");
  napi_get_buffer_info(env, argv[0], &data, &len);
  uint32_t cl = 0, il = 0;
  char *cert = string_of(env, argv[1], &cl), *issuer = string_of(env, argv[2], &il);
  double next = 0;
  int status = cert && issuer ? ocsp_check(data, len, cert, cl, issuer, il, &next) : OCSP_BAD;
  free(cert);
  free(issuer);
  napi_create_array_with_length(env, 2, &out);
  napi_set_element(env, out, 0, number(env, status));
  napi_set_element(env, out, 1, number(env, next));
  return out;
}

static napi_value js_ticket_rotation(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!args(env, info, 1, argv)) return NULL;
  int64_t ms = 0;
  napi_get_value_int64(env, argv[0], &ms);
  ticket_keys_period(ms);
  return NULL;
}

static napi_value init(napi_env env, napi_value exports) {
  /* What this build can do: HTTP/2 needs nghttp2's declarations at build time. */
  napi_value h2;
#ifdef EDGE_H2
  napi_get_boolean(env, true, &h2);
#else
  napi_get_boolean(env, false, &h2);
#endif
  napi_set_named_property(env, exports, "edgeH2", h2);
  napi_property_descriptor props[] = {
      {"edgeStart", NULL, js_start, NULL, NULL, NULL, napi_default, NULL},
      {"edgeStop", NULL, js_stop, NULL, NULL, NULL, napi_default, NULL},
      {"edgeAdd", NULL, js_add, NULL, NULL, NULL, napi_default, NULL},
      {"edgeApply", NULL, js_apply, NULL, NULL, NULL, napi_default, NULL},
      {"edgeRemove", NULL, js_remove, NULL, NULL, NULL, napi_default, NULL},
      {"edgeFree", NULL, js_free, NULL, NULL, NULL, napi_default, NULL},
      {"edgeFigures", NULL, js_figures, NULL, NULL, NULL, napi_default, NULL},
      {"edgeLog", NULL, js_log, NULL, NULL, NULL, napi_default, NULL},
      {"edgeHealth", NULL, js_health, NULL, NULL, NULL, napi_default, NULL},
      {"edgeOcsp", NULL, js_ocsp, NULL, NULL, NULL, napi_default, NULL},
      {"edgeAuthorized", NULL, js_authorized, NULL, NULL, NULL, napi_default, NULL},
      {"edgeSession", NULL, js_session, NULL, NULL, NULL, napi_default, NULL},
      {"edgeForgetSessions", NULL, js_forget_sessions, NULL, NULL, NULL, napi_default, NULL},
      {"ocspRequest", NULL, js_ocsp_request, NULL, NULL, NULL, napi_default, NULL},
      {"ocspCheck", NULL, js_ocsp_check, NULL, NULL, NULL, napi_default, NULL},
      {"edgeTicketRotation", NULL, js_ticket_rotation, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  return exports;
}

NAPI_MODULE(edge, init)
