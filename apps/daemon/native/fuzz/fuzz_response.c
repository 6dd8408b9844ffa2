/*
 * libFuzzer harness: what a backend's bytes go through before the client sees them. The input is
 * what the upstream connection reads: heads found as the bytes arrive (h1_head_end, in pieces and
 * whole) and parsed (h1_parse_response), interim 1xx answers skipped as upstream.c does, then the
 * bytes after the last head read with the chunked decoder, whole and in pieces (the same data and
 * the same end either way). The decoder reads clients' chunked request bodies as well.
 */
#include <string.h>

#include "common.h"

static void check_response(const char *buf, size_t len, const h1_response *r) {
  CHECK(r->head_len == len);
  fuzz_check_head(buf, len, r->headers, r->nheaders);
  CHECK(memcmp(buf, "HTTP/1.", 7) == 0 && (r->minor == 0 || r->minor == 1) && buf[7] - '0' == r->minor);
  CHECK(r->status >= 100 && r->status <= 999);
  /* One framing at most: a length, chunked, or to the close. */
  CHECK(r->content_length >= -1);
  CHECK(!(r->chunked && r->to_close));
  CHECK(!(r->content_length >= 0 && (r->chunked || r->to_close)));
  int codings = 0;
  for (int i = 0; i < r->nheaders; i++) {
    const h1_header *k = &r->headers[i];
    if (fuzz_is(k->name, "transfer-encoding")) codings++;
    if (fuzz_is(k->name, "content-length")) CHECK(r->content_length >= 0);
  }
  if (!codings) CHECK(!r->chunked && !r->to_close);
  else CHECK(r->chunked || r->to_close);
  CHECK(r->close == 0 || r->close == 1);
  CHECK(r->keep_alive_ms == -1 || (r->keep_alive_ms >= 0 && r->keep_alive_ms <= 999999999LL * 1000));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *in = (const char *)data;
  fuzz_rng rng;
  fuzz_rng_seed(&rng, data, size);
  static h1_response res;

  /* Any bytes at all, not only a head h1_head_end found: the parser must stay inside them. */
  if (h1_parse_response(in, size, &res) == H1_OK) check_response(in, size, &res);

  size_t off = 0;
  for (int heads = 0; heads < 16 && off < size; heads++) {
    size_t start = 0;
    long end = fuzz_head_end(in + off, size - off, 0, &rng, &start);
    CHECK(start == 0);
    if (end <= 0) break;
    int rc = h1_parse_response(in + off, (size_t)end, &res);
    CHECK(rc == H1_OK || rc == H1_BAD || rc == H1_TOO_LARGE);
    if (rc != H1_OK) break;
    check_response(in + off, (size_t)end, &res);
    off += (size_t)end;
    /* 100, 103...: the real answer follows; 101: the bytes are the tunnel's. */
    if (res.status >= 200 || res.status == 101) break;
  }

  size_t body = 0;
  int rc = fuzz_chunked(in + off, size - off, &rng, &body);
  CHECK(body <= size - off);
  if (rc == CH_DONE) CHECK(body >= 5);
  return 0;
}
