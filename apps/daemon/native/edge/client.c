/*
 * One client connection over HTTP/1.1: its requests read one at a time (pipelined ones wait in the
 * buffer), each answered here (text, redirect, jump, refusals), passed to a backend (exchange.c) or
 * to the rule's Node server (the same exchange, over a socketpair), and, after an upgrade, a tunnel.
 * The order of checks is the Node path's (web.handler.ts): ACME answers, filters, robots.txt, CORS,
 * login, then the service.
 */
#include "edge.h"
#include "exchange.h"
#include "out.h"
#include "route.h"
#include "tls.h"
#include "h2.h"
#include "auth.h"
#include "limit.h"
#include "cookie.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#define CHALLENGE "/.well-known/acme-challenge/"

static void client_free(void *p) {
  Client *c = p;
#ifdef EDGE_H2
  h2_free(c);
#endif
  tls_free(c);
  free(c->buf);
  free(c->out);
  exchange_reset(&c->x);
  free(c);
}

static Stats *stats_of(Client *c) { return c->rule->stats[c->w->index]; }

static void count_bytes(Client *c) {
  /* A stream's bytes are its connection's, counted there. */
  if (c->h2_parent) return;
  Stats *s = stats_of(c);
  s->bytes_in += c->bytes_in - c->counted_in;
  s->bytes_out += c->bytes_out - c->counted_out;
  c->counted_in = c->bytes_in;
  c->counted_out = c->bytes_out;
}

const int64_t edge_dur_bounds_us[EDGE_DUR_BUCKETS] = {5000, 10000, 25000, 50000, 100000, 250000, 500000, 1000000, 2500000, 5000000, 10000000};

/* A request answered or given up: its status code and duration counted (0: none sent) and logged. */
void request_count(Client *c, int status) {
  if (!c->in_request) return;
  c->in_request = 0;
  Stats *s = stats_of(c);
  if (status < 0 || status >= 600) status = 0;
  s->codes[status]++;
  if (c->x.fallback) s->fallback++;
  else s->native++;
  /* The access log reads the clock here anyway: the histogram costs one comparison loop more. */
  int64_t us = edge_now_us() - c->t0_us;
  if (us < 0) us = 0;
  int b = 0;
  while (b < EDGE_DUR_BUCKETS && us > edge_dur_bounds_us[b]) b++;
  s->dur[b]++;
  s->dur_us += (uint64_t)us;
  count_bytes(c);
  log_end(c, status, c->bytes_out - c->req_bytes_out, us);
}

/* The end of a request: counted, and its table let go (a tunnel keeps it until it closes). */
static void request_end(Client *c, int status) {
  request_count(c, status);
  if (c->table) table_unref(c->table);
  c->table = NULL;
}

void client_close(Client *c) {
  if (c->state == C_CLOSED) return;
  Worker *w = c->w;
  /* The request under way ends unanswered (0) or as far as it got; its upstream cannot be reused. */
  if (c->x.up) {
    Upstream *u = c->x.up;
    c->x.up = NULL;
    upstream_abort(u);
  }
  exchange_release_backend(&c->x);
  request_end(c, c->x.head_sent ? c->x.status : 0);
#ifdef EDGE_H2
  if (c->h2_parent) {
    /* A stream: RST_STREAM; nghttp2 frees it when the stream closes. */
    c->state = C_CLOSED;
    h2_stream_reset(c);
    return;
  }
  if (c->h2c) h2_free(c);
#endif
  if (c->limit_counted) limit_closed(c->rule->limiter, c->peer, c->family);
  c->limit_counted = 0;
  if (c->table) table_unref(c->table);
  c->table = NULL;
  if (c->hs_table) table_unref(c->hs_table);
  c->hs_table = NULL;
  count_bytes(c);
  stats_of(c)->connections--;
  close(c->fd);
  c->fd = -1;
  c->state = C_CLOSED;
  if (c->prev) c->prev->next = c->next;
  else w->clients = c->next;
  if (c->next) c->next->prev = c->prev;
  worker_defer_free(w, c, client_free);
}

/* Runs the client again at the end of this turn (it stopped early with bytes still buffered). */
void client_again(Client *c) {
  if (c->queued) return;
  c->queued = 1;
  c->again_next = c->w->again;
  c->w->again = c;
}

void client_accept(Worker *w, Rule *r) {
  for (int i = 0; i < 128; i++) {
    struct sockaddr_storage sa;
    socklen_t sl = sizeof sa;
    int fd = accept4(r->fd, (struct sockaddr *)&sa, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      /* Out of descriptors: stop taking connections for a moment rather than spin on them. */
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) worker_pause_accept(w, r);
      return;
    }
    Client *c = calloc(1, sizeof *c);
    if (!c) {
      close(fd);
      continue;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->ev.kind = EV_CLIENT;
    c->fd = fd;
    c->w = w;
    c->rule = r;
    c->state = C_HEAD;
    c->writable = 1;
    c->deadline = w->now + EDGE_HEAD_TIMEOUT_MS;
    if (sa.ss_family == AF_INET6) {
      struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&sa;
      c->peer_port = ntohs(s6->sin6_port);
      if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
        /* ::ffff:1.2.3.4 is 1.2.3.4 to filters, logs and headers, as on the Node path. */
        memcpy(c->peer, s6->sin6_addr.s6_addr + 12, 4);
        c->family = 4;
      } else {
        memcpy(c->peer, s6->sin6_addr.s6_addr, 16);
        c->family = 6;
      }
    } else {
      struct sockaddr_in *s4 = (struct sockaddr_in *)&sa;
      c->peer_port = ntohs(s4->sin_port);
      memcpy(c->peer, &s4->sin_addr, 4);
      c->family = 4;
    }
    inet_ntop(c->family == 4 ? AF_INET : AF_INET6, c->peer, c->ip, sizeof c->ip);
    c->ip_len = (uint32_t)strlen(c->ip);
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.ptr = c};
    if (epoll_ctl(w->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
      close(fd);
      free(c);
      continue;
    }
    Table *t = r->tables[w->index];
    if (t && t->tls_conf) {
      c->ssl = tls_new(t->tls_conf, fd);
      if (!c->ssl) {
        close(fd);
        free(c);
        continue;
      }
      c->hs_table = table_ref(t);
      c->state = C_HANDSHAKE;
    }
    if (t && t->limit_conns && r->limiter) {
      int counted = limit_opened(r->limiter, c->peer, c->family, w->now, t->limit_conns);
      c->limit_counted = counted >= 0;
      c->over_limit = counted == 0;
    }
    c->next = w->clients;
    if (w->clients) w->clients->prev = c;
    w->clients = c;
    r->stats[w->index]->connections++;
  }
}

/* >0 bytes read, 0 end of stream, -1 nothing to read now, -2 error, -3 the buffer is full. */
int client_read(Client *c) {
  /* A stream's body is put in its buffer by its connection (h2.c). */
  if (c->h2_parent) return -1;
  if (!c->buf) {
    c->buf = malloc(EDGE_BUF);
    if (!c->buf) return -2;
    c->off = c->len = 0;
  }
  if (c->off == c->len) c->off = c->len = 0;
  if (c->len == EDGE_BUF) {
    if (c->off == 0) return -3;
    memmove(c->buf, c->buf + c->off, c->len - c->off);
    c->len -= c->off;
    c->off = 0;
  }
  if (c->ssl) {
    int n = tls_read(c, c->buf + c->len, EDGE_BUF - c->len);
    if (n > 0) {
      c->len += (uint32_t)n;
      c->bytes_in += (uint64_t)n;
    }
    return n;
  }
  for (;;) {
    size_t room = EDGE_BUF - c->len;
    ssize_t n = recv(c->fd, c->buf + c->len, room, 0);
    if (n > 0) {
      c->len += (uint32_t)n;
      c->bytes_in += (uint64_t)n;
      /* Less than asked: the socket is empty now (a FIN seen with it is read next time). */
      if ((size_t)n < room && !c->rdhup) c->readable = 0;
      return (int)n;
    }
    if (n == 0) return 0;
    if (errno == EINTR) continue;
    if (errno == EAGAIN) {
      c->readable = 0;
      return -1;
    }
    return -2;
  }
}

static void request_head(Client *c, uint32_t head_len);

/* A refusal with `status` and no body; the connection closes after it. */
static void reject(Client *c, int status) {
  c->keep_alive = 0;
  answer_status(c, status, 1);
  c->state = C_ANSWER;
}

static void linger_start(Client *c) {
#ifdef EDGE_H2
  if (c->h2c) h2_free(c);
#endif
  tls_bye(c);
  shutdown(c->fd, SHUT_WR);
  c->state = C_LINGER;
  c->linger_until = c->w->now + EDGE_LINGER_MS;
  c->deadline = c->w->now + EDGE_LINGER_QUIET_MS;
}

void client_end(Client *c) {
  linger_start(c);
  client_again(c);
}

/* Reads and drops what the client still sends, so that closing does not reset our last answer. */
static void linger_step(Client *c) {
  char sink[4096];
  for (;;) {
    ssize_t n = recv(c->fd, sink, sizeof sink, 0);
    if (n > 0) {
      int64_t quiet = c->w->now + EDGE_LINGER_QUIET_MS;
      c->deadline = quiet < c->linger_until ? quiet : c->linger_until;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    client_close(c);
    return;
  }
}

/* The answer is out: the next request, or the close. */
void request_done(Client *c) {
  request_end(c, c->x.status);
  exchange_reset(&c->x);
  c->span_owner = NULL;
  if (c->h2_parent) {
    c->state = C_DONE;
    return;
  }
  if (!c->keep_alive || c->rule->removing) {
    linger_start(c);
    return;
  }
  c->state = C_HEAD;
  c->deadline = c->w->now + EDGE_KEEPALIVE_MS;
  if (c->off == c->len) c->off = c->len = 0;
}

static int is_robots(Route *r) { return r->path_n >= 11 && memcmp(r->path, "/robots.txt", 11) == 0 && (r->path_n == 11 || r->path[11] == '?'); }

void client_request(Client *c, uint32_t head_len) { request_head(c, head_len); }

/*
 * Lucky login: a request with the token of a session Node verified for this site (and one Cookie
 * header only) is the edge's to serve, as that session's user; the portal's pages, and anything
 * else, are Node's.
 */
static int portal_pass(Client *c, Site *s, h1_request *h, Route *r) {
  static const char pages[] = "/.lucky/";
  if (r->path_n >= sizeof pages - 1 && memcmp(r->path, pages, sizeof pages - 1) == 0) return 0;
  if (h->cookies != 1) return 0;
  const char *token;
  uint32_t n;
  if (!cookie_find(h->cookie.p, h->cookie.n, "lucky_portal", 12, &token, &n) || n == 0) return 0;
  int len = auth_user(s->sessions, token, n, c->w->now, c->portal_user);
  if (len < 0) return 0;
  c->portal_user_len = len;
  return 1;
}

/* The rule's limits for this client: 1 when answered here (429, 413). */
static int limited(Client *c, Table *t, h1_request *h, uint32_t head_len) {
  const Client *conn = c->h2_parent ? c->h2_parent : c;
  int status = 0, wait = 0;
  if (conn->over_limit) status = 429, wait = 1;
  else if (t->limit_per_ms && (wait = limit_take(c->rule->limiter, c->peer, c->family, c->w->now, t->limit_per_ms, t->limit_cap)) > 0) status = 429;
  else if (t->max_body && h->content_length > 0 && (uint64_t)h->content_length > t->max_body) status = 413;
  if (!status) return 0;
  c->off += head_len;
  if (h->upgrade) {
    reject(c, status);
    return 1;
  }
  /* Its body is not read (413, or a body with a refused request): the connection ends after the answer. */
  if (status == 413 || conn->over_limit) c->keep_alive = 0;
  answer_limited(c, status, wait);
  c->state = C_ANSWER;
  return 1;
}

static void request_head(Client *c, uint32_t head_len) {
  Worker *w = c->w;
  h1_request *h = &w->req;
  int rc = h1_parse_request(c->buf + c->off, head_len, h);
  if (rc != H1_OK) {
    reject(c, rc == H1_TOO_LARGE ? 431 : rc == H1_VERSION ? 505 : rc == H1_CODING ? 501 : rc == H1_EXPECT ? 417 : 400);
    return;
  }
  Table *t = c->rule->tables[w->index];
  if (!t) {
    client_close(c);
    return;
  }
  c->table = table_ref(t);
  c->portal_user_len = -1;
  c->in_request = 1;
  c->requests++;
  stats_of(c)->requests++;
  c->t0_us = edge_now_us();
  c->req_bytes_out = c->bytes_out;
  c->keep_alive = h->keep_alive && !c->rule->removing;
  c->is_head = h->is_head;
  c->deadline = 0;
  exchange_reset(&c->x);
  int has_body = h->chunked || h->content_length > 0;

  Route r;
  int bad = route_parse(&r, h);
  Site *s = bad ? &t->sites[0] : table_site(t, r.host, r.host_n);
  c->entry = log_begin(c, h, s);
  if (h->is_connect) {
    /* A forward proxy's CONNECT: not served, as on the Node path (the connection is dropped). */
    client_close(c);
    return;
  }
  /* An answer of our own leaves the request's body unread: the connection ends after it. */
  if (has_body) c->keep_alive = 0;
  if (bad) {
    c->off += head_len;
    answer_plain(c, 400, "bad request\n");
    c->state = C_ANSWER;
    return;
  }
  if (limited(c, t, h, head_len)) return;
  /* A body of no announced length past the rule's limit is counted by the Node path. */
  int fallback = s->type == SVC_FALLBACK || h->minor == 0 || (t->max_body && h->chunked) ||
                 (t->ntrusted && cidr_match(t->trusted, t->ntrusted, c->peer, c->family)) ||
                 (t->challenges && r.path_n >= sizeof CHALLENGE - 1 && memcmp(r.path, CHALLENGE, sizeof CHALLENGE - 1) == 0) ||
                 (!h->upgrade && s->cors && h->origin.p);
  if (!fallback) {
    if (route_denied(s, c, h)) {
      c->off += head_len;
      if (h->upgrade) reject(c, 403);
      else {
        answer_plain(c, 403, "forbidden\n");
        c->state = C_ANSWER;
      }
      return;
    }
    if (h->upgrade) {
      if (s->type == SVC_CLOSE) {
        client_close(c);
        return;
      }
      if (s->type != SVC_PROXY || !s->proxy.websocket) {
        c->off += head_len;
        reject(c, 400);
        return;
      }
    } else if (s->robots && is_robots(&r)) {
      c->off += head_len;
      answer_robots(c, s);
      c->state = C_ANSWER;
      return;
    }
    /* A login Node has verified already is the edge's to accept; any other goes to Node. With Lucky
     * login too, a request with an Authorization header is basic auth's, one without is the portal's. */
    c->portal_user_len = -1;
    if (s->auth && (!s->portal || h->authorization.p)) {
      fallback = !auth_ok(s->authorized, h->authorization.p, h->authorization.n, w->now);
      if (s->portal) c->portal_user_len = 0; /* the app gets no user header, and no forged one */
    } else if (s->portal) {
      fallback = !portal_pass(c, s, h, &r);
    }
  }
  if (fallback || s->type == SVC_PROXY) {
    c->keep_alive = h->keep_alive && !c->rule->removing;
    exchange_begin(c, h, s, &r, fallback);
    return;
  }
  c->off += head_len;
  switch (s->type) {
    case SVC_CLOSE:
      client_close(c);
      return;
    default:
      answer_site(c, s, &r);
      c->state = C_ANSWER;
  }
}

/* Reads until a whole head is buffered, then serves it. 0: wait for an event; 1: go on. */
static int head_step(Client *c) {
  for (;;) {
    uint32_t avail = c->len - c->off;
    if (avail) {
      /* Empty lines before a request are ignored (RFC 9112 section 2.2). */
      if (c->scan == 0)
        while (avail >= 2 && c->buf[c->off] == '\r' && c->buf[c->off + 1] == '\n') c->off += 2, avail -= 2;
      if (avail) {
        long end = h1_head_end(c->buf + c->off, avail, &c->scan);
        if (end < 0) {
          reject(c, 400);
          return 1;
        }
        if (end > 0) {
          c->scan = 0;
          request_head(c, (uint32_t)end);
          return c->state != C_CLOSED;
        }
        if (avail >= EDGE_HEAD_MAX) {
          reject(c, 431);
          return 1;
        }
      }
    }
    if (!c->readable) return 0;
    int n = client_read(c);
    if (n > 0) {
      /* The first byte of a request starts its head's clock. */
      if (avail == 0) c->deadline = c->w->now + EDGE_HEAD_TIMEOUT_MS;
      continue;
    }
    if (n == -1) return 0;
    if (n == -3) {
      reject(c, 431);
      return 1;
    }
    client_close(c);
    return 0;
  }
}

void client_run(Client *c) {
#ifdef EDGE_H2
  if (c->h2_parent) {
    h2_stream_run(c);
    return;
  }
#endif
  /* A client with many pipelined requests yields after a few, so that others get their turn. */
  for (int turns = 0; c->state != C_CLOSED; turns++) {
    if (turns == 32) {
      client_again(c);
      return;
    }
    switch (c->state) {
      case C_HANDSHAKE: {
        int r = tls_handshake(c);
        if (r < 0) {
          client_close(c);
          return;
        }
        if (r == 0) return;
        table_unref(c->hs_table);
        c->hs_table = NULL;
        c->state = C_HEAD;
        /* OpenSSL may hold the first request already (read ahead with the handshake's last bytes). */
        c->readable = 1;
#ifdef EDGE_H2
        if (tls_is_h2(c) && h2_start(c) < 0) {
          client_close(c);
          return;
        }
#endif
        break;
      }
#ifdef EDGE_H2
      case C_H2:
        h2_run(c);
        return;
#endif
      case C_HEAD:
        if (!head_step(c)) return;
        break;
      case C_ANSWER: {
        int r = client_flush(c);
        if (r < 0) {
          client_close(c);
          return;
        }
        if (r == 0) {
          if (!c->deadline) c->deadline = c->w->now + EDGE_REQUEST_TIMEOUT_MS;
          return;
        }
        request_done(c);
        break;
      }
      case C_EXCHANGE:
        exchange_step(c);
        if (c->state == C_EXCHANGE || c->state == C_TUNNEL) return;
        break;
      case C_TUNNEL:
        tunnel_step(c);
        return;
      case C_LINGER:
        linger_step(c);
        return;
    }
  }
}

void client_event(Client *c, uint32_t events) {
  if (c->state == C_CLOSED) return;
  if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) c->readable = 1;
  if (events & (EPOLLRDHUP | EPOLLHUP)) c->rdhup = 1;
  if (events & (EPOLLHUP | EPOLLERR)) c->hup = 1;
  if (events & (EPOLLOUT | EPOLLHUP | EPOLLERR)) c->writable = 1;
  /* OpenSSL may need the other direction: a read that waits to write, a write that waits to read. */
  if (c->tls_wants_write && (events & EPOLLOUT)) c->tls_wants_write = 0, c->readable = 1;
  if (c->tls_wants_read && (events & EPOLLIN)) c->tls_wants_read = 0, c->writable = 1;
  client_run(c);
}

void client_run_again(Worker *w) {
  while (w->again) {
    Client *c = w->again;
    w->again = c->again_next;
    c->queued = 0;
    if (c->state != C_CLOSED) client_run(c);
  }
}

void client_timeout(Client *c) {
  c->deadline = 0;
  switch (c->state) {
    case C_HANDSHAKE:
      client_close(c);
      break;
    case C_HEAD:
      /* Mid-head: 408, as the Node path; between requests: a quiet close. */
      if (c->len > c->off) {
        reject(c, 408);
        client_run(c);
      } else client_close(c);
      break;
    case C_TUNNEL:
      tunnel_close(c);
      break;
#ifdef EDGE_H2
    case C_H2:
      /* Quiet for 120 s: GOAWAY; streams still open (websockets) finish, then the connection ends. */
      h2_goaway(c);
      c->deadline = c->w->now + 120000;
      break;
#endif
    default:
      client_close(c);
  }
}

/* A rule going away: idle clients close now; with `all`, busy ones too (its grace is over). */
void client_drop_rule(Worker *w, Rule *r, int all) {
  for (Client *c = w->clients, *next; c; c = next) {
    next = c->next;
    if (c->rule != r) continue;
    if (all || (c->state == C_HEAD && c->off == c->len) || c->state == C_LINGER || c->state == C_HANDSHAKE) client_close(c);
#ifdef EDGE_H2
    else if (c->state == C_H2) h2_goaway(c);
#endif
    else c->keep_alive = 0;
  }
}
