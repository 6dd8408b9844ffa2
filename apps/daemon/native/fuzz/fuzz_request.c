/*
 * libFuzzer harness: what a client's bytes go through on the edge threads before any answer. The
 * input is a connection's byte stream: heads found as the bytes arrive (h1_head_end, in pieces and
 * whole), each parsed (h1_parse_request) and routed (route_parse), its body skipped as it is framed
 * (a length, or the chunked coding decoded in pieces and whole), then the next pipelined request.
 * Whatever the parser accepts must be a request no other HTTP/1.1 reader could frame differently.
 */
#define _GNU_SOURCE /* memmem; edge.h asks for it too */
#include <stdlib.h>
#include <string.h>

#include "../edge/route.h"
#include "common.h"

/* route.c's IP filters reach table.c; the harness gives its sites User-Agent filters only. */
int cidr_match(const Cidr *list, int n, const uint8_t *addr, int family) {
  (void)list, (void)n, (void)addr, (void)family;
  abort();
}

static void check_request(const char *buf, size_t len, const h1_request *h) {
  CHECK(h->head_len == len);
  CHECK(h->minor == 0 || h->minor == 1);
  fuzz_check_head(buf, len, h->headers, h->nheaders);
  CHECK(h->method.p == buf && h->method.n > 0 && h->method.n <= 32);
  for (uint32_t i = 0; i < h->method.n; i++) CHECK(fuzz_tchar((unsigned char)h->method.p[i]));
  CHECK(fuzz_inside(buf, len, h->target.p, h->target.n) && h->target.n > 0);
  for (uint32_t i = 0; i < h->target.n; i++) CHECK((unsigned char)h->target.p[i] > 0x20 && h->target.p[i] != 0x7f);
  CHECK(fuzz_inside(buf, len, h->host.p, h->host.n));
  CHECK(fuzz_inside(buf, len, h->upgrade_proto.p, h->upgrade_proto.n));
  CHECK(fuzz_inside(buf, len, h->user_agent.p, h->user_agent.n));
  CHECK(fuzz_inside(buf, len, h->authorization.p, h->authorization.n));
  CHECK(fuzz_inside(buf, len, h->origin.p, h->origin.n));

  /* The framing, read again from the header list: at most one way to find where the body ends. */
  int lengths = 0, codings = 0, hosts = 0;
  for (int i = 0; i < h->nheaders; i++) {
    const h1_header *k = &h->headers[i];
    if (fuzz_is(k->name, "content-length")) {
      lengths++;
      CHECK(k->value.n >= 1 && k->value.n <= 15);
      int64_t v = 0;
      for (uint32_t d = 0; d < k->value.n; d++) {
        CHECK(k->value.p[d] >= '0' && k->value.p[d] <= '9');
        v = v * 10 + (k->value.p[d] - '0');
      }
      CHECK(v == h->content_length);
    } else if (fuzz_is(k->name, "transfer-encoding")) {
      codings++;
      CHECK(fuzz_is(k->value, "chunked"));
    } else if (fuzz_is(k->name, "host")) {
      hosts++;
      CHECK(h->host.p == k->value.p);
    } else if (fuzz_is(k->name, "expect")) {
      CHECK(k->value.n == 0 || fuzz_is(k->value, "100-continue"));
    }
  }
  CHECK(lengths + codings <= 1);
  CHECK(h->content_length >= -1);
  CHECK(lengths ? h->content_length >= 0 : h->content_length == -1);
  CHECK(h->chunked == (codings == 1));
  if (h->chunked) CHECK(h->minor == 1);
  CHECK(hosts == h->host_count && hosts <= 1);
  if (h->minor == 1) CHECK(hosts == 1);
  CHECK(h->keep_alive == 0 || h->keep_alive == 1);
  CHECK(!h->upgrade || h->upgrade_proto.n > 0);
  CHECK(h->is_head == (h->method.n == 4 && memcmp(h->method.p, "HEAD", 4) == 0));
  CHECK(h->is_connect == (h->method.n == 7 && memcmp(h->method.p, "CONNECT", 7) == 0));
}

static int name_char(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'; }

static void check_route(const h1_request *h, const Route *r) {
  CHECK(r->h == h);
  /* The path is the target's (origin form, or after an absolute form's authority), or "/". */
  CHECK(r->path_n >= 1 && r->path[0] == '/');
  CHECK(r->path_n == 1 || fuzz_inside(h->target.p, h->target.n, r->path, r->path_n));
  if (fuzz_inside(h->target.p, h->target.n, r->path, r->path_n)) CHECK(r->path + r->path_n == h->target.p + h->target.n);
  if (h->target.p[0] != '/') {
    /* An absolute form: what lies between the scheme and the path is a host, as new URL() wants one
       on the Node path, and never a query that going without it would drop. */
    uint32_t scheme = (h->target.n > 4 && fuzz_lower((unsigned char)h->target.p[4]) == 's') ? 8 : 7;
    const char *auth = h->target.p + scheme;
    size_t auth_n = r->path_n == 1 && !fuzz_inside(h->target.p, h->target.n, r->path, 1) ? h->target.n - scheme : (size_t)(r->path - auth);
    CHECK(auth_n > 0 && !memchr(auth, '?', auth_n));
  }
  if (!h->host.p) {
    CHECK(r->host_n == 0 && !r->port);
    return;
  }
  /* The port as written, at the end of the Host value. */
  if (r->port) {
    CHECK(fuzz_inside(h->host.p, h->host.n, r->port, r->port_n));
    CHECK(r->port + r->port_n == h->host.p + h->host.n && r->port[-1] == ':');
    CHECK(r->port_n >= 1 && r->port_n <= 5);
    for (uint32_t i = 0; i < r->port_n; i++) CHECK(r->port[i] >= '0' && r->port[i] <= '9');
  } else CHECK(r->port_n == 0);
  /* The host: the value's own bytes in lower case, a name or (bracketed in the header) an IPv6 address. */
  uint32_t from = r->host_v6 ? 1 : 0;
  CHECK(r->host_n <= 253 && from + r->host_n <= h->host.n);
  for (uint32_t i = 0; i < r->host_n; i++) CHECK(r->host[i] == fuzz_lower((unsigned char)h->host.p[from + i]));
  if (r->host_v6) {
    CHECK(h->host.p[0] == '[' && h->host.p[r->host_n + 1] == ']');
    CHECK(r->host_n >= 2 && r->host_n <= 45);
    for (uint32_t i = 0; i < r->host_n; i++) CHECK(strchr("0123456789abcdef:.", r->host[i]) && r->host[i]);
  } else {
    for (uint32_t i = 0; i < r->host_n; i++) CHECK(name_char((unsigned char)r->host[i]));
    CHECK(!memmem(r->host, r->host_n, "..", 2));
    /* "example.com." is "example.com": a name never keeps its final dot. */
    CHECK(r->host_n == 0 || r->host[r->host_n - 1] != '.');
  }
}

/* A User-Agent filter as table.c builds one (lower-case needles), against a substring search of our own. */
static void check_ua_filter(h1_request *h) {
  static char *needles[] = {"bot", "curl/", "x"};
  static uint32_t lens[] = {3, 5, 1};
  static UaFilter ua = {.whitelist = 0, .n = 3, .list = needles, .lens = lens};
  static Site site = {.nua = 1, .ua = &ua};
  static Client client;
  char low[EDGE_HEAD_MAX];
  uint32_t n = h->user_agent.n;
  if (n > sizeof low) return;
  for (uint32_t i = 0; i < n; i++) low[i] = (char)fuzz_lower((unsigned char)h->user_agent.p[i]);
  int hit = 0;
  for (int i = 0; i < ua.n; i++) hit |= memmem(low, n, needles[i], lens[i]) != NULL;
  CHECK(route_denied(&site, &client, h) == hit);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *in = (const char *)data;
  fuzz_rng rng;
  fuzz_rng_seed(&rng, data, size);
  static h1_request h;

  /* Any bytes at all, not only a head h1_head_end found: the parser must stay inside them. */
  if (h1_parse_request(in, size, &h) == H1_OK) check_request(in, size, &h);

  size_t off = 0;
  while (off < size) {
    size_t start = 0;
    long end = fuzz_head_end(in + off, size - off, 1, &rng, &start);
    if (end <= 0) break;
    const char *head = in + off + start;
    int rc = h1_parse_request(head, (size_t)end, &h);
    CHECK(rc == H1_OK || rc == H1_BAD || rc == H1_TOO_LARGE || rc == H1_VERSION || rc == H1_CODING || rc == H1_EXPECT);
    /* A refused head ends the connection (client.c answers and closes). */
    if (rc != H1_OK) break;
    check_request(head, (size_t)end, &h);
    Route r;
    if (route_parse(&r, &h) == 0) check_route(&h, &r);
    check_ua_filter(&h);
    off += start + (size_t)end;
    /* After an upgrade the bytes are the tunnel's; after a CONNECT the connection is dropped. */
    if (h.upgrade || h.is_connect) break;
    if (h.chunked) {
      size_t body = 0;
      if (fuzz_chunked(in + off, size - off, &rng, &body) != CH_DONE) break;
      off += body;
    } else if (h.content_length > 0) {
      if ((uint64_t)h.content_length > size - off) break;
      off += (size_t)h.content_length;
    }
  }
  return 0;
}
