/*
 * One file read in one trip to the thread pool, confined by the kernel (Linux 5.6+ openat2).
 *
 * A storage service answering a small GET through Node's fs pays one thread-pool round trip per
 * step (realpath, stat, open, read, close): five wake-ups and context switches for a 4 KiB file,
 * which made small files half as fast as servers that do the same syscalls in place. Here the whole
 * sequence is one piece of async work.
 *
 * The path is opened with openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) below the root, so the
 * kernel refuses (EXDEV) any `..` or symlink that would leave it, at the moment of the open: no
 * window between a check and the use. It is stricter than the storages' realpath check (an
 * absolute symlink that points back inside is refused too), so the caller treats EXDEV as "not
 * decided here" and asks the realpath check, which then answers.
 *
 * JS API:
 *   readBeneath(root, rel, max) -> Promise<[errno, size, mtimeMs, ino, mode, data | null]>
 *     root  an absolute directory; rel a path below it without a leading '/' ('' is the root)
 *     errno 0, or the error of the open or fstat (ENOSYS where openat2 does not exist)
 *     data  the whole content when it is a regular file of at most `max` bytes, else null
 */
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include <node_api.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "files.h"

#define PATH_CAP 8192

typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  char root[PATH_CAP];
  char rel[PATH_CAP];
  int64_t max;
  /* results */
  int err;
  struct stat st;
  char *data;
  size_t len;
} read_job;

static int open_beneath(const char *root, const char *rel, int *out_err) {
  int dir = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) {
    *out_err = errno;
    return -1;
  }
  struct open_how how;
  memset(&how, 0, sizeof how);
  /* O_NONBLOCK: opening a FIFO someone left in a storage must not hold a pool thread forever. */
  how.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  int fd = (int)syscall(SYS_openat2, dir, rel[0] ? rel : ".", &how, sizeof how);
  if (fd < 0) *out_err = errno;
  close(dir);
  return fd;
}

static void execute(napi_env env, void *arg) {
  (void)env;
  read_job *j = arg;
  int fd = open_beneath(j->root, j->rel, &j->err);
  if (fd < 0) return;
  if (fstat(fd, &j->st) != 0) {
    j->err = errno;
    close(fd);
    return;
  }
  if (S_ISREG(j->st.st_mode) && j->st.st_size <= j->max) {
    size_t want = (size_t)j->st.st_size;
    /* One byte more than the size says, to see a file that grew since the fstat. */
    j->data = malloc(want + 1);
    if (!j->data) {
      j->err = ENOMEM;
      close(fd);
      return;
    }
    size_t got = 0;
    while (got <= want) {
      ssize_t n = read(fd, j->data + got, want + 1 - got);
      if (n < 0) {
        if (errno == EINTR) continue;
        j->err = errno;
        break;
      }
      if (n == 0) break;
      got += (size_t)n;
    }
    if (!j->err && got != want) {
      /* Changed under us: no answer from here; the caller streams it instead. */
      free(j->data);
      j->data = NULL;
    } else {
      j->len = got;
    }
  }
  close(fd);
}

static void free_data(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  free(data);
}

static void complete(napi_env env, napi_status status, void *arg) {
  read_job *j = arg;
  napi_value out, v;
  napi_create_array_with_length(env, 6, &out);
  int err = status == napi_ok ? j->err : ECANCELED;
  napi_create_int32(env, err, &v);
  napi_set_element(env, out, 0, v);
  napi_create_double(env, (double)j->st.st_size, &v);
  napi_set_element(env, out, 1, v);
  napi_create_double(env, (double)j->st.st_mtim.tv_sec * 1000.0 + (double)j->st.st_mtim.tv_nsec / 1e6, &v);
  napi_set_element(env, out, 2, v);
  napi_create_double(env, (double)j->st.st_ino, &v);
  napi_set_element(env, out, 3, v);
  napi_create_double(env, (double)j->st.st_mode, &v);
  napi_set_element(env, out, 4, v);
  if (!err && j->data) {
    /* Handed over without a copy; freed when the Buffer is collected. */
    if (napi_create_external_buffer(env, j->len, j->data, free_data, NULL, &v) != napi_ok) {
      napi_create_buffer_copy(env, j->len, j->data, NULL, &v);
      free(j->data);
    }
    j->data = NULL;
  } else {
    free(j->data);
    napi_get_null(env, &v);
  }
  napi_set_element(env, out, 5, v);
  napi_resolve_deferred(env, j->deferred, out);
  napi_delete_async_work(env, j->work);
  free(j);
}

static napi_value js_read_beneath(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3], promise, name;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  read_job *j = calloc(1, sizeof *j);
  if (!j) {
    napi_throw_error(env, NULL, "out of memory");
    return NULL;
  }
  size_t n;
  if (argc < 3 || napi_get_value_string_utf8(env, argv[0], j->root, PATH_CAP, &n) != napi_ok || n >= PATH_CAP - 1 ||
      napi_get_value_string_utf8(env, argv[1], j->rel, PATH_CAP, &n) != napi_ok || n >= PATH_CAP - 1 ||
      napi_get_value_int64(env, argv[2], &j->max) != napi_ok || strlen(j->root) == 0) {
    free(j);
    napi_throw_error(env, NULL, "readBeneath(root, rel, max) needs two strings (shorter than 8 KiB) and a number");
    return NULL;
  }
  napi_create_promise(env, &j->deferred, &promise);
  napi_create_string_utf8(env, "lucky readBeneath", NAPI_AUTO_LENGTH, &name);
  napi_create_async_work(env, NULL, name, execute, complete, j, &j->work);
  napi_queue_async_work(env, j->work);
  return promise;
}

void files_init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"readBeneath", NULL, js_read_beneath, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
}
