/*
 * HTTP/1.1 message heads and body framing, as the web data plane reads them from clients (requests)
 * and from backends (responses). Pure functions over bytes: no allocation, no system calls, so that
 * the fuzzers (native/fuzz) run them exactly as the daemon does.
 *
 * Requests are read strictly (RFC 9112): anything a front end and a back end could frame differently
 * (both Content-Length and Transfer-Encoding, two lengths, a coding other than a lone `chunked`,
 * a bare LF, whitespace before a colon, folded lines, control bytes) is refused, never guessed at.
 * Responses come from the operator's own backends and are read as the Node path reads them
 * (web.response.ts): agreeing repeated lengths are one length, other codings run to the close.
 */
#ifndef LUCKY_HTTP1_H
#define LUCKY_HTTP1_H

#include <stddef.h>
#include <stdint.h>

#define H1_MAX_HEADERS 256

/* A span of the caller's buffer. */
typedef struct {
  const char *p;
  uint32_t n;
} h1_str;

typedef struct {
  h1_str name, value;
} h1_header;

/* Results of the head parsers. */
enum {
  H1_OK = 0,
  H1_INCOMPLETE = 1,  /* no end of head yet: read more */
  H1_BAD = -1,        /* 400 */
  H1_TOO_LARGE = -2,  /* 431: the head or its header count is over the bound */
  H1_VERSION = -3,    /* 505: HTTP/x.y that is not 1.0 or 1.1 */
  H1_CODING = -4,     /* 501: a transfer coding other than chunked */
  H1_EXPECT = -5,     /* 417: an expectation other than 100-continue */
};

typedef struct {
  h1_str method, target;
  int minor; /* HTTP/1.<minor> */
  uint32_t head_len; /* bytes up to and including the blank line (and any CRLFs skipped before) */
  int nheaders;
  h1_header headers[H1_MAX_HEADERS];
  /* What the headers say. */
  int64_t content_length; /* -1: none */
  int chunked;
  int keep_alive;
  int upgrade;     /* Connection: upgrade with an Upgrade header */
  int expect_continue;
  int host_count;
  h1_str host, upgrade_proto, user_agent, authorization, origin;
  h1_str cookie;   /* the first Cookie header */
  int cookies;     /* how many Cookie headers there were */
  int is_head;     /* HEAD: the answer has no body */
  int is_connect;  /* CONNECT: not served here */
} h1_request;

typedef struct {
  int status;
  int minor;
  uint32_t head_len;
  int nheaders;
  h1_header headers[H1_MAX_HEADERS];
  int64_t content_length; /* -1: none */
  int chunked;
  int to_close;  /* a coding other than chunked last: the body runs to the close */
  int close;     /* the backend will not keep the connection */
  int64_t keep_alive_ms; /* Keep-Alive: timeout=N, -1 when not said */
} h1_response;

/*
 * Where the head that starts at buf[0] ends. `scan` is where the previous call stopped (0 at
 * first) and is updated, so that a head arriving a byte at a time is scanned once in all.
 * Returns the head's length (through its blank line), 0 when not complete yet, -1 for a bare LF.
 */
long h1_head_end(const char *buf, size_t len, size_t *scan);

/* Parses a complete request head buf[0, len) (len from h1_head_end). */
int h1_parse_request(const char *buf, size_t len, h1_request *r);

/* Parses a complete response head buf[0, len). */
int h1_parse_response(const char *buf, size_t len, h1_response *r);

/* Case-insensitive comparison of a span with a lower-case ASCII literal. */
int h1_is(h1_str s, const char *lower);

/* Is `token` (lower case) one of the comma-separated tokens of `list`? */
int h1_has_token(h1_str list, const char *token);

/*
 * Chunked transfer coding, read incrementally (RFC 9112 section 7.1). The decoder says where the
 * body's data bytes are and where the body ends; the caller may pass the raw bytes on as they are
 * (HTTP/1.1 to HTTP/1.1) or take only the data (to HTTP/2). Trailer fields are read and dropped.
 */
enum { CH_DATA = 1, CH_NEED = 2, CH_DONE = 3, CH_BAD = -1 };

typedef struct {
  int state;
  uint64_t remaining; /* data bytes left in the current chunk */
  uint32_t line;      /* bytes of the current size line, extension or trailer line */
  uint32_t trailers;  /* bytes of trailer fields so far */
  int digits;
} h1_chunked;

void h1_chunked_init(h1_chunked *c);

/*
 * Reads in[0, n). Returns CH_DATA with data and dn set to data bytes inside `in`, CH_NEED when all of
 * `in` was framing, CH_DONE when the body ended, CH_BAD for a malformed one. *used is always the
 * number of bytes of `in` consumed (for CH_DATA through the end of that data).
 */
int h1_chunked_read(h1_chunked *c, const char *in, size_t n, size_t *used, const char **data, size_t *dn);

#endif
