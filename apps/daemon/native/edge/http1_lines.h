/* Internal to the HTTP/1.1 parsers: the pieces request and response heads share. */
#ifndef LUCKY_HTTP1_LINES_H
#define LUCKY_HTTP1_LINES_H

#include "http1.h"

extern const unsigned char h1_tchar[256];

/* One header line p[0, eol) (without its CRLF): name, colon, value without surrounding whitespace. -1 when malformed. */
int h1_header_line(const char *p, const char *eol, h1_header *h);

/* A decimal of digits only (at most 15), else -1. */
int64_t h1_decimal(h1_str s);

/* The next element of a comma-separated list from *at (advanced past it), trimmed of whitespace; 0 at the end. */
int h1_next_element(h1_str list, const char **at, h1_str *one);

/* The last element of a comma-separated list, and how many there are; -1 for an empty element. */
int h1_last_token(h1_str list, h1_str *last, int *count);

#endif
