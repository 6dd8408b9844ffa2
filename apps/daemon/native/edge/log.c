/*
 * A rule's access log: the latest `capacity` requests, as the Node path keeps them (web.ring.ts),
 * shared by the rule's threads under one mutex (taken once per request, held for a pointer swap).
 * A record is made when the request's head is read and completed when its answer ends.
 */
#include "edge.h"
#include "log.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

void log_init(AccessLog *l, uint32_t capacity) {
  pthread_mutex_init(&l->lock, NULL);
  l->capacity = capacity;
  l->head = l->size = 0;
  l->ring = capacity ? calloc(capacity, sizeof *l->ring) : NULL;
}

void log_destroy(AccessLog *l) {
  for (uint32_t i = 0; i < l->capacity; i++) free(l->ring[i]);
  free(l->ring);
  pthread_mutex_destroy(&l->lock);
}

void log_resize(AccessLog *l, uint32_t capacity) {
  pthread_mutex_lock(&l->lock);
  if (capacity != l->capacity) {
    LogEntry **ring = capacity ? calloc(capacity, sizeof *ring) : NULL;
    /* Keep the newest that fit, oldest first. */
    uint32_t keep = l->size < capacity ? l->size : capacity, n = 0;
    for (uint32_t i = 0; i < l->size; i++) {
      uint32_t at = (l->head + l->capacity - l->size + i) % l->capacity;
      if (i >= l->size - keep) ring[n++] = l->ring[at];
      else free(l->ring[at]);
      l->ring[at] = NULL;
    }
    free(l->ring);
    l->ring = ring;
    l->capacity = capacity;
    l->size = n;
    l->head = capacity ? n % capacity : 0;
  }
  pthread_mutex_unlock(&l->lock);
}

static uint32_t put(char *dst, uint32_t at, const char *src, uint32_t n) {
  memcpy(dst + at, src, n);
  return at + n;
}

LogEntry *log_begin(Client *c, h1_request *req, Site *s) {
  if (!c->table || c->table->log_capacity == 0) return NULL;
  uint32_t path = req->target.n > LOG_PATH_MAX ? LOG_PATH_MAX : req->target.n;
  uint32_t ua = req->user_agent.n > LOG_UA_MAX ? LOG_UA_MAX : req->user_agent.n;
  uint32_t host = req->host.n > LOG_HOST_MAX ? LOG_HOST_MAX : req->host.n;
  uint32_t method = req->method.n;
  uint32_t total = c->ip_len + method + host + path + ua + s->name_len;
  LogEntry *e = malloc(sizeof *e + total);
  if (!e) return NULL;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  /* ms with microseconds, as the Node path stamps its entries. */
  e->time = (double)ts.tv_sec * 1000.0 + (double)(ts.tv_nsec / 1000) / 1000.0;
  e->ip_len = c->ip_len;
  e->method_len = method;
  e->host_len = host;
  e->path_len = path;
  e->ua_len = ua;
  e->sub_len = s->name_len;
  uint32_t at = 0;
  at = put(e->text, at, c->ip, c->ip_len);
  at = put(e->text, at, req->method.p, method);
  at = put(e->text, at, req->host.p ? req->host.p : "", host);
  at = put(e->text, at, req->target.p, path);
  at = put(e->text, at, req->user_agent.p ? req->user_agent.p : "", ua);
  put(e->text, at, s->name, s->name_len);
  e->status = 0;
  e->bytes = 0;
  e->ms = 0;
  return e;
}

void log_end(Client *c, int status, uint64_t bytes, int64_t us) {
  LogEntry *e = c->entry;
  if (!e) return;
  c->entry = NULL;
  e->status = status;
  e->bytes = bytes;
  e->ms = (double)(us / 100) / 10.0;
  AccessLog *l = &c->rule->log;
  LogEntry *old = NULL;
  pthread_mutex_lock(&l->lock);
  if (l->capacity) {
    old = l->ring[l->head];
    l->ring[l->head] = e;
    l->head = (l->head + 1) % l->capacity;
    if (l->size < l->capacity) l->size++;
    e = NULL;
  }
  pthread_mutex_unlock(&l->lock);
  free(old);
  free(e);
}
