/*
 * UDP: a listener's datagrams are read in batches (recvmmsg); those of a client with a session go
 * out on the session's connected socket (runs of one size as one GSO send), replies come back
 * through the listener (sendmmsg). Datagrams of clients without a session are passed to Node, which
 * decides and opens one.
 */
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include "relay.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/udp.h>
#include <stdlib.h>
#include <string.h>

/* UDP: datagrams per recvmmsg/sendmmsg call, and calls per turn. */
#define BATCH 32
#define TURN_BATCHES 8
#define DGRAM_MAX 65536
/*
 * UDP GSO: datagrams of one size, at most this big (they fit any link's MTU), up to this many and
 * this many bytes, leave as one send that the kernel cuts up (Linux 4.18+; UDP_MAX_SEGMENTS is 64).
 */
#define GSO_DGRAM_MAX 1400
#define GSO_SEGMENTS 64
#define GSO_BYTES 61440

/* Batch buffers, used by the relay thread only. */
static unsigned char bufs[BATCH][DGRAM_MAX];
static struct iovec iovs[BATCH];
static struct sockaddr_storage addrs[BATCH];
static struct mmsghdr msgs[BATCH], outs[BATCH];
static unsigned char gso_buf[GSO_BYTES];

static int recv_batch(int fd) {
  for (int i = 0; i < BATCH; i++) {
    iovs[i] = (struct iovec){.iov_base = bufs[i], .iov_len = DGRAM_MAX};
    msgs[i].msg_hdr = (struct msghdr){.msg_name = &addrs[i], .msg_namelen = sizeof addrs[i], .msg_iov = &iovs[i], .msg_iovlen = 1};
    msgs[i].msg_len = 0;
  }
  int n;
  do n = recvmmsg(fd, msgs, BATCH, MSG_DONTWAIT, NULL);
  while (n < 0 && errno == EINTR);
  return n;
}

static void to_node(UdpListener *l, int i) {
  size_t len = msgs[i].msg_len;
  Event *e = malloc(sizeof(Event) + len);
  if (!e) return;
  memset(e, 0, sizeof(Event));
  e->kind = 1;
  e->slot = l->h.slot;
  e->gen = l->h.gen;
  e->len = len;
  memcpy(e->data, bufs[i], len);
  if (addrs[i].ss_family == AF_INET) {
    struct sockaddr_in *s = (void *)&addrs[i];
    inet_ntop(AF_INET, &s->sin_addr, e->address, sizeof e->address);
    e->port = ntohs(s->sin_port);
  } else {
    struct sockaddr_in6 *s = (void *)&addrs[i];
    inet_ntop(AF_INET6, &s->sin6_addr, e->address, sizeof e->address);
    e->port = ntohs(s->sin6_port);
  }
  post(relay_on_packet, e);
}

/* How many of outs[from..m) can leave as one GSO send: same size (the last may be shorter), bounded. */
static int gso_span(int from, int m) {
  size_t size = outs[from].msg_hdr.msg_iov->iov_len;
  if (size > GSO_DGRAM_MAX || size == 0) return 1;
  int k = 1;
  size_t total = size;
  while (from + k < m && k < GSO_SEGMENTS) {
    size_t next = outs[from + k].msg_hdr.msg_iov->iov_len;
    if (next > size || next == 0 || total + next > GSO_BYTES) break;
    total += next;
    k++;
    if (next < size) break; /* a shorter one can only be the last */
  }
  return k;
}

/* outs[from..from+k) in one send with UDP_SEGMENT; -1 with errno when the kernel refused it. */
static ssize_t send_gso(int fd, int from, int k) {
  size_t size = outs[from].msg_hdr.msg_iov->iov_len, total = 0;
  for (int j = from; j < from + k; j++) {
    struct iovec *v = outs[j].msg_hdr.msg_iov;
    memcpy(gso_buf + total, v->iov_base, v->iov_len);
    total += v->iov_len;
  }
  union {
    char buf[CMSG_SPACE(sizeof(uint16_t))];
    struct cmsghdr align;
  } control;
  memset(&control, 0, sizeof control);
  struct iovec iov = {.iov_base = gso_buf, .iov_len = total};
  struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf};
  struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
  cm->cmsg_level = SOL_UDP;
  cm->cmsg_type = UDP_SEGMENT;
  cm->cmsg_len = CMSG_LEN(sizeof(uint16_t));
  uint16_t seg = (uint16_t)size;
  memcpy(CMSG_DATA(cm), &seg, sizeof seg);
  return sendmsg(fd, &mh, MSG_DONTWAIT);
}

/*
 * A run of datagrams for one session, out on its connected socket: those of one size together in
 * one GSO send (the kernel crosses its stack once for them), the others in one sendmmsg. A refusal
 * ("port unreachable") ends the session so that Node can fail over; a full socket buffer drops the
 * rest, as the network would.
 */
static void send_run(UdpSession *s, int m, int64_t now) {
  int sent = 0;
  while (sent < m) {
    int k = s->no_gso ? 1 : gso_span(sent, m);
    ssize_t r;
    if (k > 1) {
      r = send_gso(s->fd, sent, k);
      if (r < 0 && (errno == EINVAL || errno == EIO || errno == ENOPROTOOPT || errno == EOPNOTSUPP)) {
        s->no_gso = 1; /* an older kernel, or a device without checksum offload */
        continue;
      }
      if (r >= 0) {
        for (int j = sent; j < sent + k; j++) s->bytes_in += outs[j].msg_hdr.msg_iov->iov_len;
        sent += k;
        continue;
      }
    } else {
      /* Up to the next run GSO could take, in one sendmmsg. */
      int upto = sent + 1;
      while (upto < m && (s->no_gso || gso_span(upto, m) == 1)) upto++;
      r = sendmmsg(s->fd, outs + sent, (unsigned)(upto - sent), MSG_DONTWAIT);
      if (r > 0) {
        for (int j = sent; j < sent + (int)r; j++) s->bytes_in += outs[j].msg_len;
        sent += (int)r;
        continue;
      }
      if (r == 0) break;
    }
    if (errno == EINTR) continue;
    if (errno == ECONNREFUSED || errno == EHOSTUNREACH || errno == ENETUNREACH) {
      end_object(&s->h, REASON_ERROR, errno);
      return;
    }
    break;
  }
  if (sent > 0) s->last = now;
}

/*
 * Client → target: each datagram goes out on its session's socket (those of one session in a row
 * together), or to Node. The session is looked up after the previous run went out, so a session
 * that ended on the way is never used.
 */
void run_listener(UdpListener *l, int64_t now) {
  for (int turn = 0; turn < TURN_BATCHES; turn++) {
    int n = recv_batch(l->fd);
    if (n <= 0) return; /* EAGAIN: the next edge brings us back; errors: ICMP noise, nothing to end */
    UdpSession *run = NULL;
    int m = 0;
    for (int i = 0; i < n; i++) {
      if (msgs[i].msg_len > l->max_packet || (msgs[i].msg_hdr.msg_flags & MSG_TRUNC)) continue;
      UdpSession *s = find_session(l, &addrs[i]);
      if (s != run && m > 0) {
        send_run(run, m, now);
        m = 0;
        /* The run may have ended its session: look the datagram's up again. */
        s = find_session(l, &addrs[i]);
      }
      run = s;
      if (!s) {
        to_node(l, i);
        continue;
      }
      iovs[i].iov_len = msgs[i].msg_len;
      outs[m].msg_hdr = (struct msghdr){.msg_iov = &iovs[i], .msg_iovlen = 1};
      outs[m].msg_len = 0;
      m++;
    }
    if (m > 0) send_run(run, m, now);
    if (n < BATCH) return;
  }
  set_again(&l->h);
}

/* Target → client: replies go back through the listener, in batches. */
void run_session(UdpSession *s, int64_t now) {
  UdpListener *l = (UdpListener *)lookup(s->listener_slot, s->listener_gen);
  if (!l || l->h.kind != KIND_UDP_LISTENER) { end_object(&s->h, REASON_ERROR, EBADF); return; }
  for (int turn = 0; turn < TURN_BATCHES; turn++) {
    int n = recv_batch(s->fd);
    if (n < 0) {
      if (errno == EAGAIN) return;
      /* "Port unreachable" and the like: the session ends so that Node can fail over. */
      { end_object(&s->h, REASON_ERROR, errno); return; }
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
      if (msgs[i].msg_len > l->max_packet || (msgs[i].msg_hdr.msg_flags & MSG_TRUNC)) continue;
      iovs[i].iov_len = msgs[i].msg_len;
      outs[m].msg_hdr = (struct msghdr){.msg_name = &s->client, .msg_namelen = s->client_len, .msg_iov = &iovs[i], .msg_iovlen = 1};
      outs[m].msg_len = 0;
      m++;
    }
    int sent = 0;
    while (sent < m) {
      int k = sendmmsg(l->fd, outs + sent, (unsigned)(m - sent), MSG_DONTWAIT);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) break; /* full: the rest is dropped */
      for (int j = sent; j < sent + k; j++) s->bytes_out += outs[j].msg_len;
      sent += k;
    }
    if (n > 0) s->last = now;
    if (n < BATCH) return;
  }
  set_again(&s->h);
}
