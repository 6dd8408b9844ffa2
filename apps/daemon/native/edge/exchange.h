/* Between a client and an upstream connection (exchange.c, tunnel.c, upstream.c). */
#ifndef LUCKY_EDGE_EXCHANGE_H
#define LUCKY_EDGE_EXCHANGE_H

#include "edge.h"
#include "route.h"

/* How an exchange failed, as upstream.c saw it. */
enum {
  F_CONNECT = 1,     /* no connection (refused, unreachable): nothing reached the backend */
  F_CONNECT_TIMEOUT, /* no connection in time */
  F_STALE,           /* a kept-alive connection turned out closed before any answer */
  F_RESET,           /* the connection broke before the answer's head */
  F_TIMEOUT,         /* no answer in time */
  F_BAD,             /* an answer that cannot be read */
  F_CUT,             /* the answer broke off after its head */
};

void exchange_begin(Client *c, h1_request *h, Site *s, Route *r, int fallback);
void exchange_step(Client *c);
void exchange_reset(Exchange *x);
void exchange_release_backend(Exchange *x);
void pump_request_body(Client *c);

/* What upstream.c tells the exchange. */
void exchange_failed(Client *c, int kind, int err);
void exchange_head(Client *c, Upstream *u, h1_response *res);
int exchange_body(Client *c, Upstream *u, const char *p, uint32_t n, int last);
void exchange_done(Client *c);
void exchange_upgraded(Client *c, Upstream *u, h1_response *res);
void exchange_interim(Client *c, int status);

/* tunnel.c */
void tunnel_step(Client *c);
/* The backend's next bytes into its (empty) buffer: >0 read, 0 its end, -1 none now, -2 broken. */
int tunnel_fill(Upstream *u);
void tunnel_close(Client *c);

/* client.c */
void client_run(Client *c);
void client_run_again(Worker *w);
void client_again(Client *c);
int client_read(Client *c);
void request_done(Client *c);
void client_request(Client *c, uint32_t head_len);
/* The last bytes are out: half-close, read and drop what still comes, then close (a lingering close). */
void client_end(Client *c);
void exchange_finish(Client *c);
void request_count(Client *c, int status);

/* answer.c */
void answer_plain(Client *c, int status, const char *text);
void answer_robots(Client *c, Site *s);
void answer_site(Client *c, Site *s, Route *r);

#endif
