/*
 * Bytes a client is owed: heads and answers of our own are written into its `out` buffer, a body
 * passing through is a span of the upstream connection's buffer (never copied), then a little
 * framing (`tail`, a chunk's CRLF). client_flush sends them in one writev.
 */
#include "edge.h"
#include "out.h"
#include "tls.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int out_reserve(Client *c, uint32_t n) {
  if (c->out_cap - c->out_len >= n) return 0;
  if (c->out_off == c->out_len) c->out_off = c->out_len = 0;
  if (c->out_cap - c->out_len >= n) return 0;
  uint32_t cap = c->out_cap ? c->out_cap : 1024;
  while (cap - c->out_len < n) {
    if (cap > (1u << 30)) return -1;
    cap *= 2;
  }
  char *p = realloc(c->out, cap);
  if (!p) return -1;
  c->out = p;
  c->out_cap = cap;
  return 0;
}

void out_put(Client *c, const char *p, uint32_t n) {
  if (n == 0 || out_reserve(c, n) < 0) return;
  memcpy(c->out + c->out_len, p, n);
  c->out_len += n;
}

void out_str(Client *c, const char *s) { out_put(c, s, (uint32_t)strlen(s)); }

void out_num(Client *c, uint64_t v) {
  char b[24];
  int n = snprintf(b, sizeof b, "%llu", (unsigned long long)v);
  out_put(c, b, (uint32_t)n);
}

void out_header(Client *c, const char *name, uint32_t nn, const char *value, uint32_t vn) {
  if (out_reserve(c, nn + vn + 4) < 0) return;
  memcpy(c->out + c->out_len, name, nn);
  c->out_len += nn;
  c->out[c->out_len++] = ':';
  c->out[c->out_len++] = ' ';
  memcpy(c->out + c->out_len, value, vn);
  c->out_len += vn;
  c->out[c->out_len++] = '\r';
  c->out[c->out_len++] = '\n';
}

const char *reason_of(int status) {
  switch (status) {
    case 100: return "Continue";
    case 101: return "Switching Protocols";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 203: return "Non-Authoritative Information";
    case 204: return "No Content";
    case 205: return "Reset Content";
    case 206: return "Partial Content";
    case 207: return "Multi-Status";
    case 300: return "Multiple Choices";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 411: return "Length Required";
    case 412: return "Precondition Failed";
    case 413: return "Payload Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 416: return "Range Not Satisfiable";
    case 417: return "Expectation Failed";
    case 418: return "I'm a Teapot";
    case 421: return "Misdirected Request";
    case 422: return "Unprocessable Entity";
    case 423: return "Locked";
    case 425: return "Too Early";
    case 426: return "Upgrade Required";
    case 428: return "Precondition Required";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 451: return "Unavailable For Legal Reasons";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    case 507: return "Insufficient Storage";
    default: return "";
  }
}

void out_status(Client *c, int status) {
  char b[64];
  int n = snprintf(b, sizeof b, "HTTP/1.1 %d %s\r\n", status, reason_of(status));
  out_put(c, b, (uint32_t)n);
}

/* 1: all sent, 0: the socket would block (EPOLLOUT brings us back), -1: the connection broke. */
int client_flush(Client *c) {
  if (c->ssl) return tls_flush(c);
  for (;;) {
    struct iovec iov[3];
    int n = 0;
    if (c->out_off < c->out_len) iov[n].iov_base = c->out + c->out_off, iov[n++].iov_len = c->out_len - c->out_off;
    if (c->span_len) iov[n].iov_base = (void *)c->span, iov[n++].iov_len = c->span_len;
    if (c->tail_off < c->tail_len) iov[n].iov_base = c->tail + c->tail_off, iov[n++].iov_len = c->tail_len - c->tail_off;
    if (n == 0) return 1;
    if (!c->writable) return 0;
    ssize_t w = n == 1 ? send(c->fd, iov[0].iov_base, iov[0].iov_len, MSG_NOSIGNAL) : writev(c->fd, iov, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {
        c->writable = 0;
        return 0;
      }
      return -1;
    }
    c->bytes_out += (uint64_t)w;
    size_t left = (size_t)w;
    size_t a = c->out_len - c->out_off;
    if (left >= a) {
      left -= a;
      c->out_off = c->out_len = 0;
    } else {
      c->out_off += (uint32_t)left;
      c->writable = 0; /* a short write: the socket buffer is full */
      return 0;
    }
    if (c->span_len) {
      size_t b = c->span_len;
      if (left >= b) {
        left -= b;
        c->span = NULL;
        c->span_len = 0;
      } else {
        c->span += left;
        c->span_len -= (uint32_t)left;
        c->writable = 0;
        return 0;
      }
    }
    c->tail_off += (uint32_t)left;
    if (c->tail_off >= c->tail_len) c->tail_off = c->tail_len = 0;
    else {
      c->writable = 0;
      return 0;
    }
  }
}
