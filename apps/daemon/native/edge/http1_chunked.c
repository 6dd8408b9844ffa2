/* The chunked transfer coding, read a byte range at a time (see http1.h). */
#include "http1.h"

#include <string.h>

/* Bounds: hex digits of a size (2^60 bytes), one size line with its extensions, all trailer fields. */
#define MAX_DIGITS 15
#define MAX_LINE 4096
#define MAX_TRAILERS (16 * 1024)

enum { S_SIZE, S_EXT, S_SIZE_LF, S_DATA, S_DATA_CR, S_DATA_LF, S_TRAILER_START, S_TRAILER, S_TRAILER_LF, S_FINAL_LF, S_DONE };

void h1_chunked_init(h1_chunked *c) { memset(c, 0, sizeof *c); }

static int hex(unsigned char b) {
  if (b >= '0' && b <= '9') return b - '0';
  b |= 32;
  if (b >= 'a' && b <= 'f') return b - 'a' + 10;
  return -1;
}

int h1_chunked_read(h1_chunked *c, const char *in, size_t n, size_t *used, const char **data, size_t *dn) {
  size_t i = 0;
  while (i < n) {
    unsigned char b = (unsigned char)in[i];
    switch (c->state) {
      case S_SIZE: {
        int h = hex(b);
        if (h >= 0) {
          if (++c->digits > MAX_DIGITS) goto bad;
          c->remaining = (c->remaining << 4) | (uint64_t)h;
        } else if (c->digits == 0) goto bad;
        else if (b == ';') c->state = S_EXT, c->line = 0;
        else if (b == '\r') c->state = S_SIZE_LF;
        else goto bad;
        i++;
        break;
      }
      case S_EXT:
        /* Extensions are read and ignored; no control byte but the CR that ends the line. */
        if (b == '\r') c->state = S_SIZE_LF;
        else if ((b < 0x20 && b != '\t') || b == 0x7f || ++c->line > MAX_LINE) goto bad;
        i++;
        break;
      case S_SIZE_LF:
        if (b != '\n') goto bad;
        i++;
        c->digits = 0;
        c->state = c->remaining ? S_DATA : S_TRAILER_START;
        break;
      case S_DATA: {
        size_t take = n - i;
        if (take > c->remaining) take = (size_t)c->remaining;
        c->remaining -= take;
        if (c->remaining == 0) c->state = S_DATA_CR;
        *data = in + i;
        *dn = take;
        *used = i + take;
        return CH_DATA;
      }
      case S_DATA_CR:
        if (b != '\r') goto bad;
        c->state = S_DATA_LF;
        i++;
        break;
      case S_DATA_LF:
        if (b != '\n') goto bad;
        c->state = S_SIZE;
        i++;
        break;
      case S_TRAILER_START:
        /* A trailer line's first byte is held to what S_TRAILER holds the others to. */
        if (b == '\r') c->state = S_FINAL_LF;
        else if (b == '\n' || b == 0) goto bad;
        else c->state = S_TRAILER;
        if (++c->trailers > MAX_TRAILERS) goto bad;
        i++;
        break;
      case S_TRAILER:
        if (b == '\r') c->state = S_TRAILER_LF;
        else if (b == '\n' || b == 0 || ++c->trailers > MAX_TRAILERS) goto bad;
        i++;
        break;
      case S_TRAILER_LF:
        if (b != '\n') goto bad;
        c->state = S_TRAILER_START;
        i++;
        break;
      case S_FINAL_LF:
        if (b != '\n') goto bad;
        c->state = S_DONE;
        *used = i + 1;
        return CH_DONE;
      case S_DONE:
        *used = i;
        return CH_DONE;
    }
  }
  *used = n;
  return c->state == S_DONE ? CH_DONE : CH_NEED;
bad:
  *used = i;
  return CH_BAD;
}
