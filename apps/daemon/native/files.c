/*
 * One file read or written in one trip to the thread pool, confined by the kernel (Linux 5.6+ openat2).
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
 *   writeBeneath(root, relDir, name, tmp, data) -> Promise<[errno, existed, size, mtimeMs, ino]>
 *     writes `data` to relDir/tmp (created, never an existing file), then renames it over
 *     relDir/name: a reader sees the old content or the new, never a half file.
 *     errno EISDIR when `name` is a folder; EXDEV also when `name` is a symlink (the caller's
 *     realpath check then decides where the write goes).
 */
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include <node_api.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
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

static int open_beneath(const char *root, const char *rel, int flags, int *out_err) {
  int dir = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) {
    *out_err = errno;
    return -1;
  }
  struct open_how how;
  memset(&how, 0, sizeof how);
  /* openat2 refuses (EINVAL) flags that mean nothing with O_PATH, such as O_NOCTTY. */
  how.flags = (uint64_t)flags | O_CLOEXEC | ((flags & O_PATH) ? 0 : O_NOCTTY);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  int fd = (int)syscall(SYS_openat2, dir, rel[0] ? rel : ".", &how, sizeof how);
  if (fd < 0) *out_err = errno;
  close(dir);
  return fd;
}

static void execute(napi_env env, void *arg) {
  (void)env;
  read_job *j = arg;
  /* O_NONBLOCK: opening a FIFO someone left in a storage must not hold a pool thread forever. */
  int fd = open_beneath(j->root, j->rel, O_RDONLY | O_NONBLOCK, &j->err);
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

static void set_number(napi_env env, napi_value arr, uint32_t i, double d) {
  napi_value v;
  napi_create_double(env, d, &v);
  napi_set_element(env, arr, i, v);
}

static double mtime_ms(const struct stat *st) {
  return (double)st->st_mtim.tv_sec * 1000.0 + (double)st->st_mtim.tv_nsec / 1e6;
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
  set_number(env, out, 0, err);
  set_number(env, out, 1, (double)j->st.st_size);
  set_number(env, out, 2, mtime_ms(&j->st));
  set_number(env, out, 3, (double)j->st.st_ino);
  set_number(env, out, 4, (double)j->st.st_mode);
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

typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  napi_ref data_ref;
  const char *data;
  size_t len;
  char root[PATH_CAP];
  char rel[PATH_CAP];
  char name[256];
  char tmp[256];
  /* results */
  int err;
  int existed;
  struct stat st;
} write_job;

static void write_execute(napi_env env, void *arg) {
  (void)env;
  write_job *j = arg;
  int dir = open_beneath(j->root, j->rel, O_PATH | O_DIRECTORY, &j->err);
  if (dir < 0) return;
  struct stat old;
  if (fstatat(dir, j->name, &old, AT_SYMLINK_NOFOLLOW) == 0) {
    j->existed = 1;
    if (S_ISDIR(old.st_mode)) j->err = EISDIR;
    else if (!S_ISREG(old.st_mode)) j->err = EXDEV;
  } else if (errno != ENOENT) {
    j->err = errno;
  }
  if (j->err) {
    close(dir);
    return;
  }
  int fd = openat(dir, j->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
  if (fd < 0) {
    j->err = errno;
    close(dir);
    return;
  }
  size_t done = 0;
  while (done < j->len) {
    ssize_t n = write(fd, j->data + done, j->len - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      j->err = errno;
      break;
    }
    done += (size_t)n;
  }
  if (!j->err && fstat(fd, &j->st) != 0) j->err = errno;
  /* close reports a write the file system could not keep (NFS, quotas). */
  if (close(fd) != 0 && !j->err) j->err = errno;
  if (!j->err && renameat(dir, j->tmp, dir, j->name) != 0) j->err = errno;
  if (j->err) unlinkat(dir, j->tmp, 0);
  close(dir);
}

static void write_complete(napi_env env, napi_status status, void *arg) {
  write_job *j = arg;
  napi_value out, v;
  napi_create_array_with_length(env, 5, &out);
  int err = status == napi_ok ? j->err : ECANCELED;
  set_number(env, out, 0, err);
  napi_get_boolean(env, j->existed != 0, &v);
  napi_set_element(env, out, 1, v);
  set_number(env, out, 2, (double)j->st.st_size);
  set_number(env, out, 3, mtime_ms(&j->st));
  set_number(env, out, 4, (double)j->st.st_ino);
  napi_resolve_deferred(env, j->deferred, out);
  napi_delete_reference(env, j->data_ref);
  napi_delete_async_work(env, j->work);
  free(j);
}

/* A single name: no separator, not empty, not "." or "..". */
static int plain_name(const char *s) {
  return s[0] && strchr(s, '/') == NULL && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

static napi_value js_write_beneath(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5], promise, name;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  write_job *j = calloc(1, sizeof *j);
  if (!j) {
    napi_throw_error(env, NULL, "out of memory");
    return NULL;
  }
  size_t n;
  bool is_buffer = false;
  void *data = NULL;
  if (argc < 5 || napi_get_value_string_utf8(env, argv[0], j->root, PATH_CAP, &n) != napi_ok || n >= PATH_CAP - 1 || n == 0 ||
      napi_get_value_string_utf8(env, argv[1], j->rel, PATH_CAP, &n) != napi_ok || n >= PATH_CAP - 1 ||
      napi_get_value_string_utf8(env, argv[2], j->name, sizeof j->name, &n) != napi_ok || n >= sizeof j->name - 1 ||
      napi_get_value_string_utf8(env, argv[3], j->tmp, sizeof j->tmp, &n) != napi_ok || n >= sizeof j->tmp - 1 ||
      !plain_name(j->name) || !plain_name(j->tmp) || napi_is_buffer(env, argv[4], &is_buffer) != napi_ok || !is_buffer ||
      napi_get_buffer_info(env, argv[4], &data, &j->len) != napi_ok) {
    free(j);
    napi_throw_error(env, NULL, "writeBeneath(root, relDir, name, tmp, data) needs four strings (name and tmp single names) and a Buffer");
    return NULL;
  }
  j->data = data;
  /* The Buffer stays alive (and where it is) until the write is done. */
  napi_create_reference(env, argv[4], 1, &j->data_ref);
  napi_create_promise(env, &j->deferred, &promise);
  napi_create_string_utf8(env, "lucky writeBeneath", NAPI_AUTO_LENGTH, &name);
  napi_create_async_work(env, NULL, name, write_execute, write_complete, j, &j->work);
  napi_queue_async_work(env, j->work);
  return promise;
}

void files_init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"readBeneath", NULL, js_read_beneath, NULL, NULL, NULL, napi_default, NULL},
      {"writeBeneath", NULL, js_write_beneath, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
}
