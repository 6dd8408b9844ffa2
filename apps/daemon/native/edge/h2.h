/*
 * HTTP/2 on the edge (h2.c), by the nghttp2 inside Node (its symbols are Node's; the declarations
 * come from Debian's libnghttp2-dev at build time: without them the edge is built without h2 and
 * HTTP/2 rules stay on Node's servers). A connection whose ALPN chose h2 is a Client in C_H2; each
 * of its streams is a Client of its own (no socket, `h2` set), whose request is written as an
 * HTTP/1.1 head into its buffer and served by the same code as HTTP/1.1 requests: routing, filters,
 * answers, the proxy, the Node fallback. Only what a stream sends back differs: HEADERS and DATA
 * frames instead of bytes on a socket.
 */
#ifndef LUCKY_EDGE_H2_H
#define LUCKY_EDGE_H2_H

#include "edge.h"

#ifdef EDGE_H2
/* After a handshake that chose h2: the session starts (our SETTINGS go out). -1 on failure. */
int h2_start(Client *c);
/* The connection's events: frames read and handled, frames written. */
void h2_run(Client *c);
/* The connection closes: every stream with it. */
void h2_free(Client *c);
/* The connection's rule is going away: GOAWAY now, the streams under way finish. */
void h2_goaway(Client *c);

/* A stream's request and answer (called by client.c, exchange.c, upstream.c for a Client with `h2`). */
void h2_stream_run(Client *s);
void h2_stream_head(Client *s, h1_response *res, const Proxy *p, int has_body);
int h2_stream_body(Client *s, Upstream *u, const char *p, uint32_t n, int last);
void h2_stream_done(Client *s);
void h2_stream_upgraded(Client *s, h1_response *res);
void h2_stream_close(Client *s);
/* RST_STREAM for a stream given up (the close service, a broken answer). */
void h2_stream_reset(Client *s);
/* The upstream took request body bytes off the stream's buffer: the client may send more. */
void h2_stream_drained(Client *s);
int h2_stream_flush(Client *s);
#endif

#endif
