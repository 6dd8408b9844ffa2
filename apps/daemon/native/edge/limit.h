#ifndef LUCKY_EDGE_LIMIT_H
#define LUCKY_EDGE_LIMIT_H

#include <stdint.h>

/*
 * A rule's limits per client address, shared by every thread of the edge (a client's connections
 * land on any of them): a token bucket of requests and a count of open connections per address.
 * The same arithmetic as the Node path's (src/modules/web/web.limits.ts).
 */
typedef struct Limiter Limiter;

/* Tokens are counted in millionths: one request takes LIMIT_TOKEN. */
#define LIMIT_TOKEN 1000000LL

Limiter *limit_new(void);
void limit_free(Limiter *l);
/* 0: the request may go on; else the seconds it must wait. `per_ms`: tokens (millionths) gained a ms; `cap`: the bucket's depth. */
int limit_take(Limiter *l, const uint8_t *addr, int family, int64_t now_ms, int64_t per_ms, int64_t cap);
/*
 * A connection opened: 1 while within `max`, 0 past it (counted either way: limit_closed undoes it),
 * -1 when the address cannot be followed now (let through, not counted: no limit_closed).
 */
int limit_opened(Limiter *l, const uint8_t *addr, int family, int64_t now_ms, int max);
void limit_closed(Limiter *l, const uint8_t *addr, int family);

#endif
