/*
 * A compiled rule (see edge.h): immutable once built, shared by every thread, freed when the last
 * request that started with it ends. napi.c builds it from JavaScript's description.
 */
#include "edge.h"
#include "tls.h"
#include "auth.h"

#include <stdlib.h>
#include <string.h>

Table *table_ref(Table *t) {
  __atomic_add_fetch(&t->refs, 1, __ATOMIC_RELAXED);
  return t;
}

void table_unref(Table *t) {
  if (t && __atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) == 0) table_free(t);
}

static void free_template(Template *t) {
  for (int i = 0; i < t->n; i++)
    if (t->pieces[i].var < 0) free((void *)t->pieces[i].p);
  free(t->pieces);
}

void table_free(Table *t) {
  if (!t) return;
  for (int i = 0; i < t->nexact; i++) free(t->exact[i].name);
  for (int i = 0; i < t->nwild; i++) free(t->wild[i].name);
  free(t->exact);
  free(t->wild);
  free(t->trusted);
  for (int i = 0; i < t->nsites; i++) {
    Site *s = &t->sites[i];
    free(s->name);
    for (int j = 0; j < s->nip; j++) free(s->ip[j].list);
    free(s->ip);
    for (int j = 0; j < s->nua; j++) {
      for (int k = 0; k < s->ua[j].n; k++) free(s->ua[j].list[k]);
      free(s->ua[j].list);
      free(s->ua[j].lens);
    }
    free(s->ua);
    free(s->robots);
    auth_free(s->authorized);
    auth_free(s->sessions);
    free(s->user_header);
    free(s->content_type);
    free_template(&s->body);
    Proxy *p = &s->proxy;
    for (int j = 0; j < p->n; j++) {
      free(p->backends[j].host);
      free(p->backends[j].base);
      free(p->backends[j].url);
    }
    free(p->backends);
    for (int j = 0; j < p->nreq; j++) free(p->req_headers[j].name), free(p->req_headers[j].value);
    for (int j = 0; j < p->nres; j++) free(p->res_headers[j].name), free(p->res_headers[j].value);
    free(p->req_headers);
    free(p->res_headers);
  }
  free(t->sites);
  tls_conf_free(t->tls_conf);
  free(t);
}

static int cmp_entry(const HostEntry *e, const char *name, uint32_t n) {
  uint32_t m = e->len < n ? e->len : n;
  int c = memcmp(e->name, name, m);
  if (c) return c;
  return e->len < n ? -1 : e->len > n;
}

static int find_exact(Table *t, const char *name, uint32_t n) {
  int lo = 0, hi = t->nexact - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    int c = cmp_entry(&t->exact[mid], name, n);
    if (c == 0) return t->exact[mid].site;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

Site *table_site(Table *t, const char *host, uint32_t n) {
  int i = find_exact(t, host, n);
  if (i >= 0) return &t->sites[i];
  /* `*.example.com` is any name below example.com, not example.com itself; the longest wins. */
  for (int k = 0; k < t->nwild; k++) {
    HostEntry *w = &t->wild[k];
    if (n > w->len && memcmp(host + n - w->len, w->name, w->len) == 0) return &t->sites[w->site];
  }
  return &t->sites[0];
}

int cidr_match(const Cidr *list, int n, const uint8_t *addr, int family) {
  for (int i = 0; i < n; i++) {
    const Cidr *c = &list[i];
    if (c->family != family) continue;
    int bits = c->bits, k = 0;
    for (; bits >= 8; bits -= 8, k++)
      if (c->addr[k] != addr[k]) break;
    if (bits >= 8) continue;
    if (bits == 0) return 1;
    uint8_t mask = (uint8_t)(0xff << (8 - bits));
    if ((c->addr[k] & mask) == (addr[k] & mask)) return 1;
  }
  return 0;
}
