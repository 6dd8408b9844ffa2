/*
 * Answers of our own: a site's text, redirect or URL jump (with the Node path's template variables),
 * robots.txt, and the refusals (400, 403, 431...). Written into the client's `out` buffer.
 */
#include "edge.h"
#include "out.h"
#include "route.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* The values of a template's variables for this request (web.handler.ts varsOf). */
typedef struct {
  const char *p[V_COUNT];
  uint32_t n[V_COUNT];
  char host[264];
  char port[8];
  char hostport[280];
  char time[32];
} Vars;

static void vars_of(Vars *v, Client *c, Route *r) {
  h1_request *h = r->h;
  uint32_t hn = 0;
  if (r->host_v6) v->host[hn++] = '[';
  memcpy(v->host + hn, r->host, r->host_n);
  hn += r->host_n;
  if (r->host_v6) v->host[hn++] = ']';
  v->p[V_HOST] = v->host, v->n[V_HOST] = hn;
  if (r->port_n) v->p[V_PORT] = r->port, v->n[V_PORT] = r->port_n;
  else {
    int n = snprintf(v->port, sizeof v->port, "%d", c->table->port);
    v->p[V_PORT] = v->port, v->n[V_PORT] = (uint32_t)n;
  }
  if (h->host.p) v->p[V_HOST_AND_PORT] = h->host.p, v->n[V_HOST_AND_PORT] = h->host.n;
  else {
    int n = snprintf(v->hostport, sizeof v->hostport, "%.*s:%.*s", (int)hn, v->host, (int)v->n[V_PORT], v->p[V_PORT]);
    v->p[V_HOST_AND_PORT] = v->hostport, v->n[V_HOST_AND_PORT] = (uint32_t)n;
  }
  v->p[V_PATH] = r->path, v->n[V_PATH] = r->path_n;
  v->p[V_SCHEME] = c->table->tls ? "https" : "http", v->n[V_SCHEME] = c->table->tls ? 5 : 4;
  v->p[V_CLIENT_IP] = c->ip, v->n[V_CLIENT_IP] = c->ip_len;
  v->p[V_REMOTE_ADDR] = c->ip, v->n[V_REMOTE_ADDR] = c->ip_len;
  v->p[V_METHOD] = h->method.p, v->n[V_METHOD] = h->method.n;
  v->p[V_USER_AGENT] = h->user_agent.p ? h->user_agent.p : "", v->n[V_USER_AGENT] = h->user_agent.n;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  gmtime_r(&ts.tv_sec, &tm);
  size_t n = strftime(v->time, sizeof v->time, "%Y-%m-%dT%H:%M:%S", &tm);
  n += (size_t)snprintf(v->time + n, sizeof v->time - n, ".%03ldZ", ts.tv_nsec / 1000000);
  v->p[V_TIME] = v->time, v->n[V_TIME] = (uint32_t)n;
}

static uint64_t template_len(const Template *t, const Vars *v) {
  uint64_t n = 0;
  for (int i = 0; i < t->n; i++) n += t->pieces[i].var < 0 ? t->pieces[i].n : v->n[t->pieces[i].var];
  return n;
}

/* Renders into dst (of at least template_len bytes). */
static void template_put(const Template *t, const Vars *v, char *dst) {
  for (int i = 0; i < t->n; i++) {
    const Piece *p = &t->pieces[i];
    const char *s = p->var < 0 ? p->p : v->p[p->var];
    uint32_t n = p->var < 0 ? p->n : v->n[p->var];
    memcpy(dst, s, n);
    dst += n;
  }
}

/* The head's end, after the answer's own fields, in the Node path's order: Date, Connection, the blank line. */
static void head_end(Client *c) {
  uint32_t dn;
  const char *d = worker_date(c->w, &dn);
  out_put(c, d, dn);
  out_str(c, c->keep_alive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n");
}

void answer_status(Client *c, int status, int close) {
  if (close) c->keep_alive = 0;
  out_status(c, status);
  out_str(c, "Content-Length: 0\r\n");
  head_end(c);
  c->x.status = status;
}

/* A text answer: `body` of `n` bytes, or rendered from `tpl` when given. */
static void answer_text(Client *c, int status, const char *type, uint32_t type_n, const Template *tpl, const Vars *v, const char *body, uint32_t n, const char *extra) {
  uint64_t len = tpl ? template_len(tpl, v) : n;
  out_status(c, status);
  out_header(c, "Content-Type", 12, type, type_n);
  out_str(c, "Content-Length: ");
  out_num(c, len);
  out_str(c, "\r\n");
  if (extra) out_str(c, extra);
  head_end(c);
  c->x.status = status;
  if (c->is_head || len == 0) return;
  if (tpl) {
    if (out_reserve(c, (uint32_t)len) < 0) return;
    template_put(tpl, v, c->out + c->out_len);
    c->out_len += (uint32_t)len;
  } else {
    /* The table's own bytes, held by the request's reference to the table. */
    c->span = body;
    c->span_len = n;
  }
}

void answer_plain(Client *c, int status, const char *text) {
  static const char type[] = "text/plain; charset=utf-8";
  answer_text(c, status, type, sizeof type - 1, NULL, NULL, text, (uint32_t)strlen(text), NULL);
}

/* A limit's answer: 429 with how long to wait, or 413. */
void answer_limited(Client *c, int status, int retry_after) {
  static const char type[] = "text/plain; charset=utf-8";
  char extra[48] = "";
  if (retry_after > 0) snprintf(extra, sizeof extra, "Retry-After: %d\r\n", retry_after);
  const char *text = status == 413 ? "payload too large\n" : c->over_limit || (c->h2_parent && c->h2_parent->over_limit) ? "too many connections\n" : "too many requests\n";
  answer_text(c, status, type, sizeof type - 1, NULL, NULL, text, (uint32_t)strlen(text), extra[0] ? extra : NULL);
}

void answer_robots(Client *c, Site *s) {
  static const char type[] = "text/plain; charset=utf-8";
  answer_text(c, 200, type, sizeof type - 1, NULL, NULL, s->robots, s->robots_len, NULL);
}

/* HTML-escapes the five characters the Node path escapes; returns the length written. */
static uint32_t html_escape(const char *s, uint32_t n, char *dst) {
  uint32_t o = 0;
  for (uint32_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch == '&' || ch == '<' || ch == '>' || ch == '"' || ch == '\'') o += (uint32_t)sprintf(dst + o, "&#%d;", ch);
    else dst[o++] = (char)ch;
  }
  return o;
}

/* JSON.stringify of a string, with '<' as \u003c so that it cannot end the script element. */
static uint32_t js_string(const char *s, uint32_t n, char *dst) {
  uint32_t o = 0;
  dst[o++] = '"';
  for (uint32_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)s[i];
    switch (ch) {
      case '"': memcpy(dst + o, "\\\"", 2), o += 2; break;
      case '\\': memcpy(dst + o, "\\\\", 2), o += 2; break;
      case '\n': memcpy(dst + o, "\\n", 2), o += 2; break;
      case '\r': memcpy(dst + o, "\\r", 2), o += 2; break;
      case '\t': memcpy(dst + o, "\\t", 2), o += 2; break;
      case '\b': memcpy(dst + o, "\\b", 2), o += 2; break;
      case '\f': memcpy(dst + o, "\\f", 2), o += 2; break;
      case '<': memcpy(dst + o, "\\u003c", 6), o += 6; break;
      default:
        if (ch < 0x20) o += (uint32_t)sprintf(dst + o, "\\u%04x", ch);
        else dst[o++] = (char)ch;
    }
  }
  dst[o++] = '"';
  return o;
}

static void answer_jump(Client *c, Site *s, const Vars *v) {
  /* Targets are at most 2 KiB and the variables a few more: the worker's scratch holds it all. */
  char *url = c->w->scratch;
  uint64_t un = template_len(&s->body, v);
  if (un > EDGE_SCRATCH / 16) {
    answer_plain(c, 500, "internal error\n");
    return;
  }
  template_put(&s->body, v, url);
  char *html = url + un;
  char *esc = html + EDGE_SCRATCH / 2;
  uint32_t en = html_escape(url, (uint32_t)un, esc);
  char *js = esc + en;
  uint32_t jn = js_string(url, (uint32_t)un, js);
  int n = snprintf(html, EDGE_SCRATCH / 2,
                   "<!doctype html><html><head><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0;url=%.*s\">"
                   "<script>location.replace(%.*s)</script></head><body><a href=\"%.*s\">%.*s</a></body></html>\n",
                   (int)en, esc, (int)jn, js, (int)en, esc, (int)en, esc);
  static const char type[] = "text/html; charset=utf-8";
  answer_text(c, 200, type, sizeof type - 1, NULL, NULL, html, (uint32_t)n, "Cache-Control: no-store\r\n");
  /* The scratch is this turn's: the bytes go into `out` now. */
  if (c->span == html) {
    out_put(c, c->span, c->span_len);
    c->span = NULL;
    c->span_len = 0;
  }
}

void answer_site(Client *c, Site *s, Route *r) {
  Vars v;
  vars_of(&v, c, r);
  switch (s->type) {
    case SVC_TEXT:
      answer_text(c, s->status, s->content_type, s->content_type_len, &s->body, &v, NULL, 0, NULL);
      break;
    case SVC_REDIRECT: {
      uint64_t n = template_len(&s->body, &v);
      out_status(c, s->code);
      out_str(c, "Location: ");
      if (out_reserve(c, (uint32_t)n) == 0) {
        template_put(&s->body, &v, c->out + c->out_len);
        c->out_len += (uint32_t)n;
      }
      out_str(c, "\r\nContent-Length: 0\r\n");
      head_end(c);
      c->x.status = s->code;
      break;
    }
    case SVC_JUMP:
      answer_jump(c, s, &v);
      break;
  }
}
