/*
 * libFuzzer harness: a client's Cookie header value as the edge reads it for Lucky login (cookie.c).
 * The session's token found must lie inside the value and follow `lucky_portal=`; the value with the
 * portal's cookies taken out must fit the room the edge gives it, hold no portal cookie any more, keep
 * every other pair, and come out the same when stripped again.
 */
#include <stdlib.h>
#include <string.h>

#include "../edge/cookie.h"
#include "common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 8192) return 0;
  const char *in = (const char *)data;
  uint32_t n = (uint32_t)size;
  const char *val = NULL;
  uint32_t val_n = 0;
  if (cookie_find(in, n, "lucky_portal", 12, &val, &val_n)) {
    CHECK(fuzz_inside(in, size, val, val_n));
    CHECK(val >= in + 13 && memchr(in, '=', (size_t)(val - in)) != NULL);
    CHECK(val_n == 0 || (val[0] != ' ' && val[0] != '\t'));
  }
  /* Exactly the room the edge gives (exchange.c put_cookie), so ASan sees any write past it. */
  char *out = malloc((size_t)n * 2 + 2);
  CHECK(out != NULL);
  uint32_t len = cookie_strip_portal(in, n, out);
  CHECK(len <= 2 * n);
  const char *v2;
  uint32_t v2n;
  CHECK(!cookie_find(out, len, "lucky_portal", 12, &v2, &v2n));
  CHECK(!cookie_find(out, len, "lucky_portal_form", 17, &v2, &v2n));
  /* Another cookie of the input is still there, with its value. */
  if (cookie_find(in, n, "a", 1, &val, &val_n) && !cookie_find(in, n, "lucky_portal", 12, &v2, &v2n)) {
    CHECK(cookie_find(out, len, "a", 1, &v2, &v2n) && v2n == val_n && memcmp(v2, val, val_n) == 0);
  }
  char *again = malloc((size_t)len * 2 + 2);
  CHECK(again != NULL);
  uint32_t len2 = cookie_strip_portal(out, len, again);
  CHECK(len2 == len && memcmp(again, out, len) == 0);
  free(again);
  free(out);
  return 0;
}
