/*
 * Connections to backends (and to a rule's Node server), kept alive in a pool per thread and per
 * address, most recently used first. An idle one that hears anything (the backend's close, stray
 * bytes) is closed; one is trusted with a request again only for as long as the backend said it
 * keeps them (Keep-Alive: timeout, less a margin), else 30 s.
 */
#include "edge.h"
#include "exchange.h"
#include "h2.h"

#include <errno.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#define KEEPALIVE_MARGIN_MS 2000
#define KEEPALIVE_MAX_MS 600000
#define CONNECT_TIMEOUT_MAX_MS 10000

static void upstream_free(void *p) {
  Upstream *u = p;
  free(u->buf);
  free(u);
}

static Pool *pool_of(Worker *w, Rule *fb, const struct sockaddr_storage *addr, socklen_t len) {
  for (Pool *p = w->pools; p; p = p->next) {
    if (fb ? p->rule == fb : (!p->rule && p->addr_len == len && memcmp(&p->addr, addr, len) == 0)) return p;
  }
  Pool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->rule = fb;
  if (!fb) {
    memcpy(&p->addr, addr, len);
    p->addr_len = len;
  }
  p->next = w->pools;
  w->pools = p;
  return p;
}

static void unidle(Upstream *u) {
  Pool *p = u->pool;
  for (Upstream **q = &p->idle; *q; q = &(*q)->idle_next)
    if (*q == u) {
      *q = u->idle_next;
      p->nidle--;
      break;
    }
  u->idle = 0;
  u->idle_next = NULL;
}

void upstream_abort(Upstream *u) {
  if (u->fd < 0) return;
  Worker *w = u->w;
  if (u->idle) unidle(u);
  close(u->fd);
  u->fd = -1;
  u->client = NULL;
  if (u->prev) u->prev->next = u->next;
  else w->upstreams = u->next;
  if (u->next) u->next->prev = u->prev;
  worker_defer_free(w, u, upstream_free);
}

Upstream *upstream_get(Worker *w, Rule *fb, const struct sockaddr_storage *addr, socklen_t len, int fresh, int *err) {
  Pool *p = pool_of(w, fb, addr, len);
  if (!p) {
    *err = ENOMEM;
    return NULL;
  }
  while (!fresh && p->idle) {
    Upstream *u = p->idle;
    unidle(u);
    if (u->eof || u->rdhup) {
      upstream_abort(u);
      continue;
    }
    return u;
  }
  int fd, connecting = 0;
  if (fb) {
    fd = fallback_connect(w, fb);
    if (fd < 0) {
      *err = -fd;
      return NULL;
    }
  } else {
    fd = socket(addr->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      *err = errno;
      return NULL;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (const struct sockaddr *)addr, len) < 0) {
      if (errno != EINPROGRESS) {
        *err = errno;
        close(fd);
        return NULL;
      }
      connecting = 1;
    }
  }
  Upstream *u = calloc(1, sizeof *u);
  if (!u) {
    close(fd);
    *err = ENOMEM;
    return NULL;
  }
  u->ev.kind = EV_UPSTREAM;
  u->fd = fd;
  u->w = w;
  u->pool = p;
  u->connecting = connecting;
  u->writable = !connecting;
  u->idle_ms = EDGE_POOL_IDLE_MS;
  struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.ptr = u};
  if (epoll_ctl(w->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
    *err = errno;
    close(fd);
    free(u);
    return NULL;
  }
  u->next = w->upstreams;
  if (w->upstreams) w->upstreams->prev = u;
  w->upstreams = u;
  return u;
}

void upstream_start(Upstream *u, Client *c) {
  Exchange *x = &c->x;
  u->client = c;
  u->uses++;
  u->got = 0;
  u->scan = 0;
  u->reusable = 1;
  u->paused = 0;
  if (u->off == u->len) u->off = u->len = 0;
  u->timeout_ms = x->fallback ? 0 : x->site->proxy.timeout_ms;
  if (u->connecting) {
    int64_t t = u->timeout_ms && u->timeout_ms < CONNECT_TIMEOUT_MAX_MS ? u->timeout_ms : CONNECT_TIMEOUT_MAX_MS;
    u->deadline = u->w->now + t;
    return;
  }
  u->deadline = u->timeout_ms ? u->w->now + u->timeout_ms : 0;
  upstream_flush_request(u);
}

/* How a broken connection fails its exchange: a reused one that never answered was most likely stale. */
static void fail(Upstream *u, int kind, int err) {
  Client *c = u->client;
  if (kind == F_RESET && u->uses > 1 && !u->got) kind = F_STALE;
  u->client = NULL;
  upstream_abort(u);
  if (c && c->x.up == u) exchange_failed(c, kind, err);
}

int upstream_flush_request(Upstream *u) {
  Client *c = u->client;
  Exchange *x = &c->x;
  for (;;) {
    struct iovec iov[3];
    int n = 0;
    uint32_t head = x->line_len + x->rest_len;
    if (x->sent < x->line_len) iov[n].iov_base = x->line + x->sent, iov[n++].iov_len = x->line_len - x->sent;
    if (x->sent < head && x->rest_len) {
      uint32_t o = x->sent > x->line_len ? x->sent - x->line_len : 0;
      iov[n].iov_base = x->rest + o, iov[n++].iov_len = x->rest_len - o;
    }
    if (x->req_ready) iov[n].iov_base = c->buf + c->off, iov[n++].iov_len = x->req_ready;
    if (n == 0) {
      if (x->req_parsed && !x->req_done) {
        x->req_done = 1;
        u->deadline = u->timeout_ms ? u->w->now + u->timeout_ms : 0;
      }
      return 1;
    }
    if (!u->writable) return 0;
    struct msghdr m = {.msg_iov = iov, .msg_iovlen = (size_t)n};
    ssize_t w = sendmsg(u->fd, &m, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {
        u->writable = 0;
        return 0;
      }
      fail(u, F_RESET, errno);
      return -1;
    }
    size_t left = (size_t)w;
    uint32_t h = head - x->sent;
    if (left <= h) {
      x->sent += (uint32_t)left;
      left = 0;
    } else {
      x->sent = head;
      left -= h;
    }
    if (left) {
      c->off += (uint32_t)left;
      x->req_ready -= (uint32_t)left;
      /* Once a byte of a stream's open chunk is sent, its size is fixed: new data starts another. */
      if (c->h2_chunk_open >= 0 && c->off > (uint32_t)c->h2_chunk_open) c->h2_chunk_open = -1;
      if (c->off == c->len) c->off = c->len = 0;
#ifdef EDGE_H2
      if (c->h2_parent) h2_stream_drained(c);
#endif
    }
    if (u->timeout_ms) u->deadline = u->w->now + u->timeout_ms;
    size_t total = 0;
    for (int i = 0; i < n; i++) total += iov[i].iov_len;
    if ((size_t)w < total) {
      u->writable = 0;
      return 0;
    }
  }
}

/* Reads and passes on what the backend sends, until it would block or the client cannot take more. */
static void upstream_read(Upstream *u) {
  Worker *w = u->w;
  for (;;) {
    Client *c = u->client;
    if (!c || u->paused) return;
    Exchange *x = &c->x;
    if (u->off < u->len) {
      u->got = 1;
      if (!x->head_seen) {
        long end = h1_head_end(u->buf + u->off, u->len - u->off, &u->scan);
        if (end < 0) { fail(u, F_BAD, EPROTO); return; }
        if (end == 0) {
          if (u->len - u->off >= EDGE_BUF) { fail(u, F_BAD, EMSGSIZE); return; }
          goto read;
        }
        h1_response *res = &w->res;
        if (h1_parse_response(u->buf + u->off, (size_t)end, res) != H1_OK) { fail(u, F_BAD, EPROTO); return; }
        u->scan = 0;
        if (res->status < 200) {
          u->off += (uint32_t)end;
          if (res->status == 101) {
            if (!x->upgrade) { fail(u, F_BAD, EPROTO); return; }
            u->reusable = 0;
            exchange_upgraded(c, u, res);
            return;
          }
          exchange_interim(c, res->status);
          continue;
        }
        u->off += (uint32_t)end;
        u->reusable = !res->close && !res->to_close && !x->upgrade;
        if (res->keep_alive_ms >= 0) {
          int64_t idle = res->keep_alive_ms - KEEPALIVE_MARGIN_MS;
          if (idle <= 0) u->reusable = 0;
          else u->idle_ms = idle < KEEPALIVE_MAX_MS ? idle : KEEPALIVE_MAX_MS;
        }
        if (x->upgrade) {
          /* The backend refused the upgrade: its answer goes on, and both connections end after it. */
          c->keep_alive = 0;
        }
        exchange_head(c, u, res);
        if (c->state != C_EXCHANGE || c->x.up != u) return;
        if (x->res_mode == 0) {
          if (u->off < u->len) u->reusable = 0;
          exchange_done(c);
          return;
        }
        continue;
      }
      /* Body bytes: how many of those buffered belong to this answer (`take`), and what goes on (`p`, `span`). */
      const char *p = u->buf + u->off;
      uint32_t avail = u->len - u->off, take = avail;
      uint32_t span = UINT32_MAX;
      int last = 0;
      if (x->res_mode == 1) {
        if (take > x->res_left) take = (uint32_t)x->res_left;
        x->res_left -= take;
        last = x->res_left == 0;
      } else if (x->res_mode == 2 && c->h2_parent) {
        /* To a stream: the chunks' data only, one span at a time. */
        size_t used = 0, dn = 0;
        const char *d = NULL;
        int rc = h1_chunked_read(&x->res_ch, p, avail, &used, &d, &dn);
        if (rc == CH_BAD) { fail(u, F_CUT, EPROTO); return; }
        take = (uint32_t)used;
        p = rc == CH_DATA ? d : NULL;
        span = rc == CH_DATA ? (uint32_t)dn : 0;
        last = rc == CH_DONE;
      } else if (x->res_mode == 2) {
        size_t total = 0;
        int rc = CH_NEED;
        while (total < avail) {
          size_t used = 0, dn = 0;
          const char *d = NULL;
          rc = h1_chunked_read(&x->res_ch, p + total, avail - total, &used, &d, &dn);
          total += used;
          if (rc != CH_DATA) break;
        }
        if (rc == CH_BAD) { fail(u, F_CUT, EPROTO); return; }
        take = (uint32_t)total;
        last = rc == CH_DONE;
      }
      u->off += take;
      if (last && u->off < u->len) u->reusable = 0; /* nothing may follow an answer on HTTP/1.1 */
      int r = exchange_body(c, u, p, span == UINT32_MAX ? take : span, last && x->res_mode != 3);
      if (r < 0) return;
      if (last) {
        if (r == 1) exchange_done(c);
        else x->res_complete = 1;
        return;
      }
      if (r == 0) {
        /* The client is slow, not the backend: no timeout while we wait for it. */
        u->paused = 1;
        u->deadline = 0;
        return;
      }
      continue;
    }
  read:
    if (!u->readable) return;
    if (!u->buf) {
      u->buf = malloc(EDGE_BUF);
      if (!u->buf) { fail(u, F_RESET, ENOMEM); return; }
    }
    if (u->off == u->len) u->off = u->len = 0;
    else if (u->len == EDGE_BUF) {
      memmove(u->buf, u->buf + u->off, u->len - u->off);
      u->len -= u->off;
      u->off = 0;
    }
    size_t room = EDGE_BUF - u->len;
    ssize_t n = recv(u->fd, u->buf + u->len, room, 0);
    if (n > 0) {
      u->len += (uint32_t)n;
      if ((size_t)n < room && !u->rdhup) u->readable = 0;
      if (u->timeout_ms) u->deadline = w->now + u->timeout_ms;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      u->readable = 0;
      return;
    }
    /* The end of the connection: it completes an answer that runs to the close, else it breaks one. */
    u->eof = 1;
    u->reusable = 0;
    int err = n < 0 ? errno : 0;
    if (!x->head_seen) { fail(u, F_RESET, err ? err : ECONNRESET); return; }
    if (x->res_mode == 3 || x->res_mode == 4) {
      int r = exchange_body(c, u, u->buf + u->off, 0, 1);
      if (r == 1) exchange_done(c);
      else if (r == 0) x->res_complete = 1;
      return;
    }
    { fail(u, F_CUT, err ? err : ECONNRESET); return; }
  }
}

void upstream_resume(Upstream *u) {
  if (!u->paused || u->fd < 0) return;
  u->paused = 0;
  if (u->timeout_ms) u->deadline = u->w->now + u->timeout_ms;
  upstream_read(u);
}

void upstream_event(Upstream *u, uint32_t events) {
  if (u->fd < 0) return;
  if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) u->readable = 1;
  if (events & (EPOLLRDHUP | EPOLLHUP)) u->rdhup = 1;
  if (events & (EPOLLOUT | EPOLLHUP | EPOLLERR)) u->writable = 1;
  if (u->idle) {
    /* An idle connection has nothing to say: the backend closed it, or it cannot be trusted. */
    if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) upstream_abort(u);
    return;
  }
  Client *c = u->client;
  if (!c) {
    upstream_abort(u);
    return;
  }
  if (u->connecting) {
    if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) return;
    int e = 0;
    socklen_t l = sizeof e;
    getsockopt(u->fd, SOL_SOCKET, SO_ERROR, &e, &l);
    if (e) { fail(u, F_CONNECT, e); return; }
    u->connecting = 0;
    u->deadline = u->timeout_ms ? u->w->now + u->timeout_ms : 0;
  }
  if (c->state == C_TUNNEL) {
    tunnel_step(c);
    return;
  }
  if (c->state != C_EXCHANGE || c->x.up != u) return;
  if (u->writable && !c->x.head_seen) {
    if (upstream_flush_request(u) < 0) return;
    if (c->state != C_EXCHANGE || c->x.up != u) return;
    /* The backend took what was waiting: the client may send more of its body. */
    if (!c->x.req_parsed) pump_request_body(c);
    if (c->state != C_EXCHANGE || c->x.up != u) return;
  }
  if (u->readable) upstream_read(u);
}

void upstream_timeout(Upstream *u) {
  u->deadline = 0;
  if (u->idle || !u->client) {
    upstream_abort(u);
    return;
  }
  Client *c = u->client;
  if (u->connecting) { fail(u, F_CONNECT_TIMEOUT, ETIMEDOUT); return; }
  if (!c->x.head_seen) { fail(u, F_TIMEOUT, ETIMEDOUT); return; }
  /* Silent in the middle of an answer for longer than the timeout (proxy_read_timeout). */
  fail(u, F_CUT, ETIMEDOUT);
}

void upstream_release(Upstream *u) {
  Pool *p = u->pool;
  u->client = NULL;
  if (u->fd < 0) return;
  if (p->nidle >= EDGE_POOL_IDLE_MAX || u->eof || u->rdhup || u->off < u->len) {
    upstream_abort(u);
    return;
  }
  u->off = u->len = 0;
  /* A connection between answers holds no buffer: a thousand idle ones cost no 16 MB. */
  free(u->buf);
  u->buf = NULL;
  u->idle = 1;
  u->idle_next = p->idle;
  p->idle = u;
  p->nidle++;
  u->deadline = u->w->now + u->idle_ms;
}

void upstream_close_idle(Worker *w, Rule *r) {
  for (Pool **q = &w->pools; *q;) {
    Pool *p = *q;
    if (p->rule != r) {
      q = &p->next;
      continue;
    }
    while (p->idle) upstream_abort(p->idle);
    /* Any connection still using the pool points at it: only an empty one goes. */
    int used = 0;
    for (Upstream *u = w->upstreams; u; u = u->next)
      if (u->pool == p) used = 1;
    if (used) {
      q = &p->next;
      continue;
    }
    *q = p->next;
    free(p);
  }
}

void upstream_free_pools(Worker *w) {
  while (w->pools) {
    Pool *p = w->pools;
    w->pools = p->next;
    free(p);
  }
}
