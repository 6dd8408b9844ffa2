/*
 * HTTP/2 connections and their streams (see h2.h). nghttp2 does the framing, HPACK, flow control
 * and the protocol's own defences (rapid reset, CONTINUATION floods: its limits end such sessions
 * with GOAWAY); this file keeps its bounds (the ones the Node path keeps, web.h2.ts) and moves
 * bytes: what a client sends is read with nghttp2_session_mem_recv, what nghttp2 wants sent goes
 * out through the connection's TLS as one coalesced write, never faster than the socket takes it.
 *
 * Request bodies are given back to flow control only once the backend took them, so a slow backend
 * holds the client to its window instead of filling memory; answers are handed to nghttp2 from the
 * backend's buffer as the client's window allows, and the backend is read again once they are taken.
 */
#ifdef EDGE_H2
#include "h2.h"

#include <errno.h>
#include <nghttp2/nghttp2.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "exchange.h"
#include "out.h"

#define MAX_STREAMS 128
#define MAX_HEADER_LIST (32 * 1024)
#define MAX_FIELDS 128
#define MAX_INVALID 100
#define STREAM_WINDOW 65535
#define CONN_WINDOW (1024 * 1024)
/* A stream's request head, and room for its body: its window and half again (see h2_stream_drained). */
#define HEAD_ROOM (MAX_HEADER_LIST + 4096)
#define BODY_ROOM (STREAM_WINDOW * 2 + 4096)
#define IDLE_MS 120000
/* nghttp2 1.61 (Node's) ends a CONTINUATION flood with this; older headers may not name it. */
#ifdef NGHTTP2_ERR_TOO_MANY_CONTINUATIONS
#define TOO_MANY_CONTINUATIONS NGHTTP2_ERR_TOO_MANY_CONTINUATIONS
#else
#define TOO_MANY_CONTINUATIONS (-905)
#endif
/* Frames wait in the connection's buffer up to this much before nghttp2 is asked for more. */
#define OUT_HIGH (64 * 1024)

typedef struct {
  char *method, *path, *authority, *protocol, *cookie;
  uint32_t method_n, path_n, authority_n, protocol_n, cookie_n;
  int fields, bytes, line_written, has_length, head_done;
} Req;

struct H2Conn {
  nghttp2_session *session;
  Client *streams;
  int invalid;
  int goaway;
  int closing;
  uint64_t consume_conn; /* window to give back for streams gone */
};

static void req_free(Req *r) {
  if (!r) return;
  free(r->method);
  free(r->path);
  free(r->authority);
  free(r->protocol);
  free(r->cookie);
  free(r);
}

static void stream_free(void *p) {
  Client *s = p;
  req_free(s->h2_req);
  free(s->buf);
  free(s->out);
  exchange_reset(&s->x);
  free(s);
}

static void schedule(Client *s) {
  if (s->h2_parent && s->h2_parent->state != C_CLOSED) client_again(s->h2_parent);
}

/* ------------------------------------------------------------------ request heads as HTTP/1.1 */

static int put(Client *s, const char *p, uint32_t n) {
  if (s->cap - s->len < n) return -1;
  memcpy(s->buf + s->len, p, n);
  s->len += n;
  return 0;
}

static int put_header(Client *s, const char *name, uint32_t nn, const char *value, uint32_t vn) {
  return put(s, name, nn) | put(s, ": ", 2) | put(s, value, vn) | put(s, "\r\n", 2);
}

static char *copy(const uint8_t *p, size_t n, uint32_t *len) {
  char *c = malloc(n + 1);
  if (!c) return NULL;
  memcpy(c, p, n);
  c[n] = 0;
  *len = (uint32_t)n;
  return c;
}

/* The request line once the pseudo-headers are in (they come first, nghttp2 sees to that). */
static int write_line(Client *s) {
  Req *r = s->h2_req;
  r->line_written = 1;
  if (!r->method || !r->path) return -1;
  int tunnel = r->protocol && r->method_n == 7 && !memcmp(r->method, "CONNECT", 7);
  /* An extended CONNECT (RFC 8441) is the backend's HTTP/1.1 upgrade: a GET on the path. */
  if (tunnel) {
    if (put(s, "GET ", 4) < 0) return -1;
  } else if (put(s, r->method, r->method_n) < 0 || put(s, " ", 1) < 0) return -1;
  if (put(s, r->path, r->path_n) < 0 || put(s, " HTTP/1.1\r\n", 11) < 0) return -1;
  if (r->authority && put_header(s, "host", 4, r->authority, r->authority_n) < 0) return -1;
  return 0;
}

static int on_begin_headers(nghttp2_session *session, const nghttp2_frame *frame, void *user) {
  Client *c = user;
  if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
  Client *s = calloc(1, sizeof *s);
  Req *r = calloc(1, sizeof *r);
  char *buf = malloc(HEAD_ROOM);
  if (!s || !r || !buf) {
    free(s);
    free(r);
    free(buf);
    return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
  }
  s->ev.kind = EV_CLIENT;
  s->fd = -1;
  s->w = c->w;
  s->rule = c->rule;
  s->state = C_HEAD;
  s->writable = 1;
  s->keep_alive = 1;
  s->h2_parent = c;
  s->h2_req = r;
  s->h2_chunk_open = -1;
  s->stream_id = frame->hd.stream_id;
  s->buf = buf;
  s->cap = HEAD_ROOM;
  memcpy(s->peer, c->peer, sizeof s->peer);
  s->family = c->family;
  memcpy(s->ip, c->ip, sizeof s->ip);
  s->ip_len = c->ip_len;
  s->peer_port = c->peer_port;
  s->h2_next = c->h2c->streams;
  c->h2c->streams = s;
  nghttp2_session_set_stream_user_data(session, frame->hd.stream_id, s);
  return 0;
}

static int on_header(nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name, size_t nn, const uint8_t *value, size_t vn, uint8_t flags, void *user) {
  (void)flags;
  (void)user;
  if (frame->hd.type != NGHTTP2_HEADERS) return 0;
  Client *s = nghttp2_session_get_stream_user_data(session, frame->hd.stream_id);
  Req *r = s ? s->h2_req : NULL;
  if (!r || r->head_done) return 0;
  /* The bounds the rule offers: 128 fields, 32 KiB of header list (HPACK's 32 bytes a field counted). */
  r->bytes += (int)(nn + vn + 32);
  if (++r->fields > MAX_FIELDS || r->bytes > MAX_HEADER_LIST) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
  if (nn && name[0] == ':') {
    char **slot = NULL;
    uint32_t *len = NULL;
    if (nn == 7 && !memcmp(name, ":method", 7)) slot = &r->method, len = &r->method_n;
    else if (nn == 5 && !memcmp(name, ":path", 5)) slot = &r->path, len = &r->path_n;
    else if (nn == 10 && !memcmp(name, ":authority", 10)) slot = &r->authority, len = &r->authority_n;
    else if (nn == 9 && !memcmp(name, ":protocol", 9)) slot = &r->protocol, len = &r->protocol_n;
    if (slot && !*slot && !(*slot = copy(value, vn, len))) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    return 0;
  }
  if (!r->line_written && write_line(s) < 0) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
  /* :authority is the request's Host (RFC 9113 section 8.3.1). */
  if (nn == 4 && !memcmp(name, "host", 4) && r->authority) return 0;
  if (nn == 6 && !memcmp(name, "cookie", 6)) {
    /* Cookies may come split in h2; HTTP/1.1 wants them as one field. */
    char *joined = realloc(r->cookie, r->cookie_n + vn + 3);
    if (!joined) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    if (r->cookie_n) memcpy(joined + r->cookie_n, "; ", 2), r->cookie_n += 2;
    memcpy(joined + r->cookie_n, value, vn);
    r->cookie_n += (uint32_t)vn;
    r->cookie = joined;
    return 0;
  }
  /* The edge answers an h2 client's wait itself by reading the body at once. */
  if (nn == 6 && !memcmp(name, "expect", 6) && vn == 12 && !strncasecmp((const char *)value, "100-continue", 12)) return 0;
  if (nn == 14 && !memcmp(name, "content-length", 14)) r->has_length = 1;
  if (put_header(s, (const char *)name, (uint32_t)nn, (const char *)value, (uint32_t)vn) < 0) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
  return 0;
}

static void request_ready(Client *s, int ended) {
  Req *r = s->h2_req;
  r->head_done = 1;
  if (!r->line_written && write_line(s) < 0) return h2_stream_close(s);
  if (r->cookie && put_header(s, "cookie", 6, r->cookie, r->cookie_n) < 0) return h2_stream_close(s);
  int tunnel = r->protocol != NULL;
  if (tunnel) {
    /* The backend hears a websocket upgrade, with a key of ours (an h2 client sends none). */
    unsigned char key[16];
    char b64[32];
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    RAND_bytes(key, sizeof key);
    int o = 0;
    for (int i = 0; i < 16; i += 3) {
      uint32_t v = (uint32_t)key[i] << 16 | (i + 1 < 16 ? (uint32_t)key[i + 1] << 8 : 0) | (i + 2 < 16 ? key[i + 2] : 0);
      b64[o++] = abc[(v >> 18) & 63];
      b64[o++] = abc[(v >> 12) & 63];
      b64[o++] = i + 1 < 16 ? abc[(v >> 6) & 63] : '=';
      b64[o++] = i + 2 < 16 ? abc[v & 63] : '=';
    }
    if (put(s, "connection: upgrade\r\nupgrade: ", 30) < 0 || put(s, r->protocol, r->protocol_n) < 0 || put(s, "\r\n", 2) < 0 ||
        put_header(s, "sec-websocket-key", 17, b64, (uint32_t)o) < 0)
      return h2_stream_close(s);
  } else if (!ended && !r->has_length && put(s, "transfer-encoding: chunked\r\n", 28) < 0) {
    return h2_stream_close(s);
  }
  if (put(s, "\r\n", 2) < 0) return h2_stream_close(s);
  s->h2_remote_ended = ended;
  s->h2_tunnel = tunnel;
  /* A plain CONNECT (a forward proxy's) is not served: 405, as on the Node path. */
  if (!tunnel && r->method_n == 7 && !memcmp(r->method, "CONNECT", 7)) {
    s->off = s->len;
    answer_status(s, 405, 0);
    s->state = C_ANSWER;
    h2_stream_run(s);
    return;
  }
  client_request(s, s->len - s->off);
  if (s->state != C_CLOSED) h2_stream_run(s);
}

static int on_frame_recv(nghttp2_session *session, const nghttp2_frame *frame, void *user) {
  (void)user;
  Client *s = nghttp2_session_get_stream_user_data(session, frame->hd.stream_id);
  if (!s) return 0;
  int ended = (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;
  if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST) {
    request_ready(s, ended);
  } else if (ended && (frame->hd.type == NGHTTP2_DATA || frame->hd.type == NGHTTP2_HEADERS)) {
    /* The end of the body (or of trailers, which are dropped as the proxy drops them). */
    s->h2_remote_ended = 1;
    if (s->state == C_EXCHANGE && s->x.req_mode == 3 && !s->h2_last_chunk) {
      if (s->off == s->len) s->off = s->len = 0;
      if (s->cap - s->len < 5) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
      memcpy(s->buf + s->len, "0\r\n\r\n", 5);
      s->len += 5;
      s->h2_last_chunk = 1;
      s->h2_chunk_open = -1;
    }
    client_again(s);
  }
  return 0;
}

/* A body's bytes without a length, framed as chunks as they arrive: a run not yet sent grows in place (a fixed-width size), so tiny DATA frames cost no framing each. */
static int append_chunk(Client *s, const uint8_t *data, size_t n) {
  if (s->h2_chunk_open >= 0) {
    uint32_t at = (uint32_t)s->h2_chunk_open;
    if (s->cap - s->len < n) return -1;
    s->len -= 2; /* the open chunk's CRLF */
    memcpy(s->buf + s->len, data, n);
    s->len += (uint32_t)n;
    memcpy(s->buf + s->len, "\r\n", 2);
    s->len += 2;
    unsigned long size = strtoul(s->buf + at, NULL, 16) + n;
    char hex[9];
    snprintf(hex, sizeof hex, "%08lx", size);
    memcpy(s->buf + at, hex, 8);
    return 0;
  }
  if (s->cap - s->len < n + 12) return -1;
  s->h2_chunk_open = (int32_t)s->len;
  int k = snprintf(s->buf + s->len, 11, "%08lx\r\n", (unsigned long)n);
  s->len += (uint32_t)k;
  memcpy(s->buf + s->len, data, n);
  s->len += (uint32_t)n;
  memcpy(s->buf + s->len, "\r\n", 2);
  s->len += 2;
  return 0;
}

static int on_data(nghttp2_session *session, uint8_t flags, int32_t id, const uint8_t *data, size_t n, void *user) {
  (void)flags;
  Client *c = user;
  Client *s = nghttp2_session_get_stream_user_data(session, id);
  if (!s) {
    c->h2c->consume_conn += n;
    return 0;
  }
  s->h2_unconsumed += (uint32_t)n;
  if (s->state != C_EXCHANGE && s->state != C_TUNNEL) {
    /* Not wanted (answered already, or gone): the window is given back at once. */
    s->h2_consume = 1;
    client_again(s);
    return 0;
  }
  if (s->cap < BODY_ROOM) {
    char *grown = realloc(s->buf, BODY_ROOM);
    if (!grown) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    s->buf = grown;
    s->cap = BODY_ROOM;
  }
  if (s->off == s->len) s->off = s->len = 0, s->h2_chunk_open = -1;
  if (s->off && s->cap - s->len < n + 12) {
    memmove(s->buf, s->buf + s->off, s->len - s->off);
    s->len -= s->off;
    if (s->h2_chunk_open >= 0) s->h2_chunk_open -= (int32_t)s->off;
    s->off = 0;
  }
  int bad = s->state == C_EXCHANGE && s->x.req_mode == 3 ? append_chunk(s, data, n) : (s->cap - s->len < n ? -1 : (memcpy(s->buf + s->len, data, n), s->len += (uint32_t)n, 0));
  /* More than the window allowed. */
  if (bad) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
  s->bytes_in += n;
  client_again(s);
  return 0;
}

static int on_stream_close(nghttp2_session *session, int32_t id, uint32_t code, void *user) {
  (void)code;
  Client *c = user;
  Client *s = nghttp2_session_get_stream_user_data(session, id);
  if (!s) return 0;
  nghttp2_session_set_stream_user_data(session, id, NULL);
  /* Body bytes never given back still count against the connection's window. */
  c->h2c->consume_conn += s->h2_unconsumed;
  s->h2_unconsumed = 0;
  s->h2_stream_gone = 1;
  /* nghttp2 closes a stream as it sends its last frame, before we hear that its body was taken:
   * an answer that is over ends as answered (its upstream connection back to the pool). */
  if (s->state == C_EXCHANGE && s->x.res_complete && !s->span_len) exchange_finish(s);
  else if (s->state == C_SENDING && s->h2_eof) request_done(s);
  if (s->state == C_DONE) s->state = C_CLOSED;
  else if (s->state != C_CLOSED) client_close(s);
  for (Client **p = &c->h2c->streams; *p; p = &(*p)->h2_next)
    if (*p == s) {
      *p = s->h2_next;
      break;
    }
  worker_defer_free(c->w, s, stream_free);
  return 0;
}

static int on_invalid_frame(nghttp2_session *session, const nghttp2_frame *frame, int err, void *user) {
  (void)frame;
  (void)err;
  Client *c = user;
  if (++c->h2c->invalid > MAX_INVALID) nghttp2_session_terminate_session(session, NGHTTP2_ENHANCE_YOUR_CALM);
  return 0;
}

/* ------------------------------------------------------------------ answers */

static ssize_t read_body(nghttp2_session *session, int32_t id, uint8_t *buf, size_t len, uint32_t *flags, nghttp2_data_source *src, void *user) {
  (void)session;
  (void)id;
  (void)user;
  Client *s = src->ptr;
  if (s->state == C_CLOSED) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
  size_t n = 0;
  uint32_t k = s->out_len - s->out_off;
  if (k) {
    if (k > len) k = (uint32_t)len;
    memcpy(buf, s->out + s->out_off, k);
    s->out_off += k;
    n += k;
  }
  k = s->span_len;
  if (k && n < len) {
    if (k > len - n) k = (uint32_t)(len - n);
    memcpy(buf + n, s->span, k);
    s->span += k;
    s->span_len -= k;
    n += k;
    if (!s->span_len) {
      s->span = NULL;
      /* The backend's bytes are all taken: read it again (after this write, outside nghttp2). */
      s->h2_drained = 1;
      client_again(s);
    }
  }
  s->bytes_out += n;
  if (s->out_off == s->out_len && !s->span_len && s->h2_body_done) {
    *flags |= NGHTTP2_DATA_FLAG_EOF;
    s->h2_eof = 1;
    client_again(s);
  } else if (n == 0) {
    s->h2_deferred = 1;
    return NGHTTP2_ERR_DEFERRED;
  }
  return (ssize_t)n;
}

static int lower_copy(char *dst, const char *src, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) dst[i] = (char)(src[i] >= 'A' && src[i] <= 'Z' ? src[i] + 32 : src[i]);
  return 0;
}

/* Headers HTTP/2 forbids in an answer (RFC 9113 section 8.2.2), and what RFC 8441 has no use for. */
static int not_h2(const char *n, uint32_t len) {
  switch (len) {
    case 7: return !strncasecmp(n, "upgrade", 7);
    case 10: return !strncasecmp(n, "connection", 10) || !strncasecmp(n, "keep-alive", 10);
    case 16: return !strncasecmp(n, "proxy-connection", 16);
    case 17: return !strncasecmp(n, "transfer-encoding", 17);
    case 20: return !strncasecmp(n, "sec-websocket-accept", 20);
  }
  return 0;
}

static int is_custom(const Proxy *p, const char *n, uint32_t len) {
  if (!p) return 0;
  for (int i = 0; i < p->nres; i++)
    if (p->res_headers[i].name_len == len && !strncasecmp(p->res_headers[i].name, n, len)) return 1;
  return 0;
}

/* Submits `status` and the headers of `res` (less what h2 forbids) on the stream. */
static void submit(Client *s, int status, h1_response *res, const Proxy *p, int has_body) {
  Client *c = s->h2_parent;
  if (s->h2_submitted || s->h2_stream_gone) return;
  s->h2_submitted = 1;
  nghttp2_nv nv[H1_MAX_HEADERS + 70];
  char *names = c->w->scratch; /* lower-cased names, this call's */
  uint32_t used = 0;
  int n = 0, has_date = 0;
  char code[4];
  snprintf(code, sizeof code, "%03d", status);
  nv[n++] = (nghttp2_nv){(uint8_t *)":status", (uint8_t *)code, 7, 3, NGHTTP2_NV_FLAG_NONE};
  for (int i = 0; res && i < res->nheaders; i++) {
    h1_header *h = &res->headers[i];
    if (not_h2(h->name.p, h->name.n) || is_custom(p, h->name.p, h->name.n)) continue;
    if (used + h->name.n > EDGE_SCRATCH) break;
    if (h->name.n == 4 && !strncasecmp(h->name.p, "date", 4)) has_date = 1;
    lower_copy(names + used, h->name.p, h->name.n);
    nv[n++] = (nghttp2_nv){(uint8_t *)names + used, (uint8_t *)h->value.p, h->name.n, h->value.n, NGHTTP2_NV_FLAG_NONE};
    used += h->name.n;
  }
  for (int i = 0; p && i < p->nres && n < H1_MAX_HEADERS + 68; i++)
    if (p->res_headers[i].value_len)
      nv[n++] = (nghttp2_nv){(uint8_t *)p->res_headers[i].name, (uint8_t *)p->res_headers[i].value, p->res_headers[i].name_len, p->res_headers[i].value_len, NGHTTP2_NV_FLAG_NONE};
  char date[40];
  if (!has_date) {
    uint32_t dn;
    const char *d = worker_date(c->w, &dn);
    /* "Date: ...\r\n" without its name and line end. */
    snprintf(date, sizeof date, "%.*s", (int)(dn - 8), d + 6);
    nv[n++] = (nghttp2_nv){(uint8_t *)"date", (uint8_t *)date, 4, strlen(date), NGHTTP2_NV_FLAG_NONE};
  }
  nghttp2_data_provider body = {.source.ptr = s, .read_callback = read_body};
  if (nghttp2_submit_response(c->h2c->session, s->stream_id, nv, (size_t)n, has_body ? &body : NULL) != 0) {
    client_close(s);
    return;
  }
  schedule(s);
}

void h2_stream_head(Client *s, h1_response *res, const Proxy *p, int has_body) { submit(s, res->status, res, p, has_body); }

void h2_stream_upgraded(Client *s, h1_response *res) {
  /* The backend's 101 is the stream's 200 (RFC 8441); the stream then carries the tunnel's bytes. */
  submit(s, 200, res, NULL, 1);
}

int h2_stream_body(Client *s, Upstream *u, const char *p, uint32_t n, int last) {
  if (s->h2_stream_gone) return -1;
  if (n) {
    s->span = p;
    s->span_len = n;
    s->span_owner = u;
  }
  if (last) s->h2_body_done = 1;
  if (s->h2_deferred) {
    s->h2_deferred = 0;
    nghttp2_session_resume_data(s->h2_parent->h2c->session, s->stream_id);
  }
  schedule(s);
  return n ? 0 : 1;
}

void h2_stream_done(Client *s) {
  s->h2_body_done = 1;
  if (s->h2_deferred) {
    s->h2_deferred = 0;
    nghttp2_session_resume_data(s->h2_parent->h2c->session, s->stream_id);
  }
  schedule(s);
}

int h2_stream_flush(Client *s) { return s->span_len || s->out_off < s->out_len ? 0 : 1; }

/* An answer of ours (answer.c wrote it as HTTP/1.1 into `out`): its head becomes HEADERS, the rest DATA. */
static void submit_answer(Client *s) {
  char *head = s->out + s->out_off;
  uint32_t avail = s->out_len - s->out_off;
  size_t scan = 0;
  long end = h1_head_end(head, avail, &scan);
  h1_response *res = &s->w->res;
  if (end <= 0 || h1_parse_response(head, (size_t)end, res) != H1_OK) {
    client_close(s);
    return;
  }
  s->out_off += (uint32_t)end;
  s->h2_body_done = 1;
  int has_body = s->out_off < s->out_len || s->span_len;
  submit(s, res->status, res, NULL, has_body);
  if (!has_body) s->h2_eof = 1;
}

void h2_stream_close(Client *s) { client_close(s); }

void h2_stream_reset(Client *s) {
  Client *c = s->h2_parent;
  if (s->h2_stream_gone || !c || !c->h2c) return;
  nghttp2_submit_rst_stream(c->h2c->session, NGHTTP2_FLAG_NONE, s->stream_id, NGHTTP2_INTERNAL_ERROR);
  schedule(s);
}

void h2_stream_drained(Client *s) {
  /* Given back once the buffer is half empty: the client never has more than a window in flight. */
  if (s->h2_unconsumed && s->len - s->off <= BODY_ROOM / 2) {
    s->h2_consume = 1;
    client_again(s);
  }
}

/* Tunnel over a stream: the client's DATA to the backend, the backend's bytes as DATA. */
static void tunnel_run(Client *s) {
  Upstream *u = s->x.up;
  if (!u) return client_close(s);
  for (int turns = 0; turns < 16; turns++) {
    int progress = 0;
    if (s->off < s->len && u->writable) {
      ssize_t n = send(u->fd, s->buf + s->off, s->len - s->off, MSG_NOSIGNAL);
      if (n > 0) {
        s->off += (uint32_t)n;
        progress = 1;
        if (s->off == s->len) s->off = s->len = 0;
        h2_stream_drained(s);
      } else if (n < 0 && errno == EAGAIN) u->writable = 0;
      else if (n < 0 && errno != EINTR) return client_close(s);
    }
    if (s->h2_remote_ended && s->off == s->len && !s->tunnel_eof) {
      s->tunnel_eof = 1;
      shutdown(u->fd, SHUT_WR);
    }
    if (!s->span_len && u->off < u->len) {
      /* What the backend sent goes to nghttp2 as the stream's DATA, taken from its buffer. */
      h2_stream_body(s, u, u->buf + u->off, u->len - u->off, 0);
      u->off = u->len;
      progress = 1;
    }
    if (!s->span_len && u->off >= u->len && !u->eof && u->readable) {
      int n = tunnel_fill(u);
      if (n == -2) return client_close(s);
      if (n > 0) progress = 1;
      else if (n == 0) h2_stream_done(s);
    }
    if (!progress) break;
  }
}

void h2_stream_run(Client *s) {
  if (s->h2_stream_gone || s->state == C_CLOSED) return;
  if (s->h2_consume && s->h2_unconsumed) {
    nghttp2_session_consume(s->h2_parent->h2c->session, s->stream_id, s->h2_unconsumed);
    s->h2_unconsumed = 0;
    s->h2_consume = 0;
    schedule(s);
  }
  if (s->h2_drained && !s->span_len) {
    s->h2_drained = 0;
    Upstream *owner = s->span_owner;
    s->span_owner = NULL;
    if (s->state == C_EXCHANGE && s->x.res_complete) {
      exchange_finish(s);
      return;
    }
    if (owner && s->state == C_EXCHANGE) upstream_resume(owner);
  }
  switch (s->state) {
    case C_ANSWER:
      submit_answer(s);
      if (s->state != C_ANSWER) break;
      s->state = C_SENDING;
      if (s->h2_eof) request_done(s); /* a body-less answer is out already */
      break;
    case C_SENDING:
      /* Logged once its last byte is handed to nghttp2 (its size is the body's). */
      if (s->h2_eof) request_done(s);
      break;
    case C_EXCHANGE:
      if (!s->x.req_parsed || s->x.req_ready) pump_request_body(s);
      break;
    case C_TUNNEL:
      tunnel_run(s);
      break;
  }
}

/* ------------------------------------------------------------------ the connection */

int h2_start(Client *c) {
  H2Conn *h = calloc(1, sizeof *h);
  nghttp2_session_callbacks *cb = NULL;
  nghttp2_option *opt = NULL;
  if (!h || nghttp2_session_callbacks_new(&cb) != 0 || nghttp2_option_new(&opt) != 0) {
    free(h);
    if (cb) nghttp2_session_callbacks_del(cb);
    return -1;
  }
  nghttp2_session_callbacks_set_on_begin_headers_callback(cb, on_begin_headers);
  nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
  nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame_recv);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data);
  nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_stream_close);
  nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(cb, on_invalid_frame);
  /* Request bodies are given back to flow control by hand, once the backend took them. */
  nghttp2_option_set_no_auto_window_update(opt, 1);
  nghttp2_option_set_max_deflate_dynamic_table_size(opt, 4096);
  int rc = nghttp2_session_server_new2(&h->session, cb, c, opt);
  nghttp2_session_callbacks_del(cb);
  nghttp2_option_del(opt);
  if (rc != 0) {
    free(h);
    return -1;
  }
  c->h2c = h;
  nghttp2_settings_entry settings[] = {
      {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, MAX_STREAMS},
      {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, MAX_HEADER_LIST},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, STREAM_WINDOW},
      {NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL, 1},
  };
  nghttp2_submit_settings(h->session, NGHTTP2_FLAG_NONE, settings, sizeof settings / sizeof settings[0]);
  nghttp2_session_set_local_window_size(h->session, NGHTTP2_FLAG_NONE, 0, CONN_WINDOW);
  c->state = C_H2;
  c->deadline = c->w->now + IDLE_MS;
  return 0;
}

void h2_goaway(Client *c) {
  H2Conn *h = c->h2c;
  if (!h || h->goaway) return;
  h->goaway = 1;
  nghttp2_submit_goaway(h->session, NGHTTP2_FLAG_NONE, nghttp2_session_get_last_proc_stream_id(h->session), NGHTTP2_NO_ERROR, NULL, 0);
  client_again(c);
}

/* A session nghttp2 gave up on (a flood, a protocol error): its GOAWAY goes out, as the socket takes it, then the end. */
static void closing(Client *c) {
  H2Conn *h = c->h2c;
  const uint8_t *data;
  ssize_t n;
  while (c->out_len - c->out_off < OUT_HIGH && (n = nghttp2_session_mem_send(h->session, &data)) > 0) out_put(c, (const char *)data, (uint32_t)n);
  h->closing = 1;
  c->deadline = c->w->now + 5000;
  int r = client_flush(c);
  if (r < 0) client_close(c);
  else if (r == 1) client_end(c);
}

void h2_run(Client *c) {
  H2Conn *h = c->h2c;
  if (h->closing) {
    int r = client_flush(c);
    if (r < 0) client_close(c);
    else if (r == 1) client_end(c);
    return;
  }
  for (int turns = 0; turns < 32; turns++) {
    int progress = 0;
    /* Read while the answers already made have somewhere to go. */
    if (c->readable && c->out_len - c->out_off < OUT_HIGH) {
      int n = client_read(c);
      if (n > 0) {
        ssize_t used = nghttp2_session_mem_recv(h->session, (const uint8_t *)c->buf + c->off, c->len - c->off);
        c->off = c->len = 0;
        if (used < 0) {
          /* nghttp2 stops reading a flood or a broken stream of frames without telling the client: we do. */
          nghttp2_session_terminate_session(h->session, used == NGHTTP2_ERR_FLOODED || used == TOO_MANY_CONTINUATIONS ? NGHTTP2_ENHANCE_YOUR_CALM : NGHTTP2_PROTOCOL_ERROR);
          return closing(c);
        }
        c->deadline = c->w->now + IDLE_MS;
        progress = 1;
      } else if (n == 0 || n == -2 || n == -3) return client_close(c);
    }
    if (c->state == C_CLOSED) return;
    if (h->consume_conn) {
      nghttp2_session_consume_connection(h->session, (size_t)h->consume_conn);
      h->consume_conn = 0;
    }
    /* Frames to the connection's buffer, while it is not backed up. */
    while (c->out_len - c->out_off < OUT_HIGH) {
      const uint8_t *data;
      ssize_t n = nghttp2_session_mem_send(h->session, &data);
      if (n < 0) return client_close(c);
      if (n == 0) break;
      out_put(c, (const char *)data, (uint32_t)n);
      progress = 1;
    }
    int r = client_flush(c);
    if (r < 0) return client_close(c);
    /* Done (a GOAWAY out and no stream left): read and drop what the client still sends, so that our last frames are not lost to a reset. */
    if (!nghttp2_session_want_read(h->session) && !nghttp2_session_want_write(h->session) && r == 1) return client_end(c);
    if (!progress) break;
  }
}

void h2_free(Client *c) {
  H2Conn *h = c->h2c;
  if (!h) return;
  c->h2c = NULL;
  /* Every stream ends with its connection (their exchanges are let go), then the session. */
  while (h->streams) {
    Client *s = h->streams;
    h->streams = s->h2_next;
    s->h2_stream_gone = 1;
    if (s->state != C_CLOSED) client_close(s);
    worker_defer_free(c->w, s, stream_free);
  }
  nghttp2_session_del(h->session);
  free(h);
}
#endif
