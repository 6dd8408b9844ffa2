#ifndef LUCKY_EDGE_COOKIE_H
#define LUCKY_EDGE_COOKIE_H

#include <stdint.h>

/*
 * The login portal's cookies in a Cookie header value (RFC 6265 section 4.2: `name=value` pairs
 * separated by `;` and optional spaces), as the client sent it: untrusted bytes.
 */

/* The value of the cookie `name` (the first of that name); 1 when there is one. */
int cookie_find(const char *v, uint32_t n, const char *name, uint32_t name_n, const char **val, uint32_t *val_n);
/* The header value without the portal's cookies (lucky_portal, lucky_portal_form) into `dst`, which
 * holds 2 * n bytes at least (pairs are joined again with "; ", which may be longer than what
 * separated them); returns the length written (0: nothing left, drop the header). */
uint32_t cookie_strip_portal(const char *v, uint32_t n, char *dst);

#endif
