/*
 * Files (the FTP data path, HTTP file bodies): a file send moves a file to a socket with
 * sendfile(2), a file receive moves a socket into a file at an offset with splice(2) through a pipe.
 * Node opens the file (after its path checks) and the socket, and closes both once the end is
 * reported or remove() returned.
 */
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include "relay.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/sendfile.h>
#include <sys/socket.h>

/* Sends until the socket would block (EPOLLOUT brings us back), the turn is used, or the end. */
void run_send(FileSend *f, int64_t now) {
  size_t budget = TURN_BYTES;
  while (f->left > 0) {
    if (budget == 0) {
      set_again(&f->h);
      return;
    }
    size_t want = f->left < budget ? (size_t)f->left : budget;
    ssize_t n = sendfile(f->sock, f->file, &f->offset, want);
    if (n > 0) {
      f->bytes += (uint64_t)n;
      if (f->left != UNLIMITED) f->left -= (uint64_t)n;
      budget -= (size_t)n;
      f->last = now;
      continue;
    }
    if (n == 0) break; /* the end of the file (it may have shrunk since the transfer began) */
    if (errno == EINTR) continue;
    if (errno == EAGAIN) return;
    end_object(&f->h, REASON_ERROR, errno);
    return;
  }
  /* The FIN goes after the bytes still in the socket buffer; Node closes the socket on the end. */
  if (!f->keep_open) shutdown(f->sock, SHUT_WR);
  end_object(&f->h, REASON_DONE, 0);
}

/* Socket → pipe → file until the socket would block, the turn is used, EOF, or the limit. */
void run_recv(FileRecv *f, int64_t now) {
  Dir *d = &f->d;
  size_t budget = TURN_BYTES;
  for (;;) {
    if (d->in_pipe > 0) {
      /* Blocking: a regular file takes the whole write unless the disk fails (see FileSend). */
      ssize_t w = splice(d->pipe_r, NULL, f->file, &f->offset, d->in_pipe, SPLICE_F_MOVE);
      if (w > 0) {
        d->in_pipe -= (size_t)w;
        d->bytes += (uint64_t)w;
        continue;
      }
      if (w < 0 && errno == EINTR) continue;
      end_object(&f->h, REASON_ERROR, w < 0 ? errno : EIO);
      return;
    }
    if (d->eof) {
      end_object(&f->h, REASON_DONE, 0);
      return;
    }
    if (budget == 0) {
      set_again(&f->h);
      return;
    }
    if (d->pipe_r < 0 && take_pipe(d) < 0) {
      end_object(&f->h, REASON_ERROR, errno);
      return;
    }
    /* One byte past the limit is enough to know that the upload does not fit. */
    size_t want = CHUNK;
    if (f->limit != UNLIMITED && f->limit - f->received < want) want = (size_t)(f->limit - f->received) + 1;
    ssize_t r = splice(f->sock, NULL, d->pipe_w, NULL, want, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
    if (r > 0) {
      d->in_pipe = (size_t)r; /* set first: the end below must not put a full pipe back in the pool */
      f->received += (uint64_t)r;
      f->last = now;
      if (f->limit != UNLIMITED && f->received > f->limit) {
        end_object(&f->h, REASON_LIMIT, 0);
        return;
      }
      budget = (size_t)r >= budget ? 0 : budget - (size_t)r;
      continue;
    }
    if (r == 0) {
      d->eof = 1;
      continue;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN) {
      give_pipe(d); /* empty here; a stalled upload holds no pipe */
      return;
    }
    end_object(&f->h, REASON_ERROR, errno);
    return;
  }
}
