#ifndef LUCKY_EDGE_ROUTE_H
#define LUCKY_EDGE_ROUTE_H

#include "edge.h"

/* A request's routing facts (the host in lower case, its port as written, the path and query). */
typedef struct {
  h1_request *h;
  char host[260];
  uint32_t host_n;
  int host_v6;
  const char *port;
  uint32_t port_n;
  const char *path;
  uint32_t path_n;
} Route;

/* 0, or -1 for a malformed Host or an unusable target (400). */
int route_parse(Route *r, h1_request *h);
/* The site's IP or User-Agent filters refuse this request (403). */
int route_denied(const Site *s, const Client *c, h1_request *h);

#endif
