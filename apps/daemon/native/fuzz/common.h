/*
 * What the harnesses share: a failed invariant stops the run as a crash (so libFuzzer keeps the input),
 * split points drawn from the input itself (so a corpus file is plain bytes and a crash replays the
 * same splits), and the two differential checks both directions of the proxy need.
 */
#ifndef LUCKY_FUZZ_COMMON_H
#define LUCKY_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "../edge/http1.h"

/* An invariant: on failure, says which and where, then aborts (libFuzzer writes the reproducer). */
#define CHECK(cond) ((cond) ? (void)0 : fuzz_fail(#cond, __FILE__, __LINE__))
void fuzz_fail(const char *what, const char *file, int line) __attribute__((noreturn));

/* Is p[0, n) inside base[0, len)? A NULL span of 0 bytes is too (a header not sent). */
int fuzz_inside(const char *base, size_t len, const char *p, size_t n);

/* A token character (RFC 9110 section 5.6.2), written out again rather than taken from the parser. */
int fuzz_tchar(unsigned char b);

/* ASCII lower case, and a span compared with a lower-case literal whatever its case. */
int fuzz_lower(int c);
int fuzz_is(h1_str s, const char *lower_text);

/*
 * What every head a parser accepted must be: lines ended by CRLF and nothing else, no control byte
 * but a tab, no line that starts with whitespace (a folded line), a blank line at the end; and its
 * headers, names of token characters and values without surrounding whitespace, all inside it.
 */
void fuzz_check_head(const char *buf, size_t len, const h1_header *headers, int n);

/* A deterministic stream of numbers seeded by the input's bytes. */
typedef struct {
  uint64_t s;
} fuzz_rng;
void fuzz_rng_seed(fuzz_rng *r, const uint8_t *data, size_t n);
/* The size of the next piece of a stream cut at random: mostly a few bytes, sometimes many. */
size_t fuzz_piece(fuzz_rng *r, size_t left);

/*
 * Where the head starting at buf[0] ends, found by h1_head_end once over all of buf[0, len) and
 * again as the bytes arrive in random pieces (the scan cursor carried between calls, as client.c
 * and upstream.c do). Both must give the same answer; `skip_crlf` drops the empty lines clients may
 * send before a request (client.c does it while the cursor is 0). Returns h1_head_end's answer;
 * *start is where the head starts after skipped lines.
 */
long fuzz_head_end(const char *buf, size_t len, int skip_crlf, fuzz_rng *r, size_t *start);

/*
 * A chunked body at in[0, n) decoded once whole and again in random pieces. Both must give the same
 * data bytes and the same end (CH_DONE, CH_BAD or CH_NEED, at the same offset), every data span lying
 * inside the piece it came from. Returns the result; *end is the offset after the body (CH_DONE) or
 * of the refused byte (CH_BAD).
 */
int fuzz_chunked(const char *in, size_t n, fuzz_rng *r, size_t *end);

#endif
