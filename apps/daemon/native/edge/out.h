#ifndef LUCKY_EDGE_OUT_H
#define LUCKY_EDGE_OUT_H

#include "edge.h"

int out_reserve(Client *c, uint32_t n);
void out_put(Client *c, const char *p, uint32_t n);
void out_str(Client *c, const char *s);
void out_num(Client *c, uint64_t v);
void out_header(Client *c, const char *name, uint32_t nn, const char *value, uint32_t vn);
void out_status(Client *c, int status);
const char *reason_of(int status);
int client_flush(Client *c);

#endif
