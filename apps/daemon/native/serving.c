/*
 * What moving web serving between the main thread and serving threads asks of the system.
 *
 * A listening socket must outlive whoever polls it: closing one that the kernel still routes
 * connections to (SO_REUSEPORT) resets every connection waiting in its accept queue. So each side
 * that serves it gets its own descriptor of the same socket, and the socket ends with the last one.
 *
 * Serving threads end once the load is gone, and their malloc arenas keep what the threads freed:
 * glibc gives back the top of an arena, not the free pages inside it, so the daemon stayed 80-130 MB
 * above its idle size after a burst. malloc_trim(0) gives those pages back to the system.
 *
 * JS API:
 *   dupFd(fd) -> fd, or -errno      another descriptor of the same open socket (close-on-exec)
 *   trimHeap() -> bool              free heap pages returned to the system (false: not glibc, or nothing to give)
 */
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include <node_api.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "serving.h"

static napi_value js_dup_fd(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], out;
  int64_t fd = -1;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 || napi_get_value_int64(env, argv[0], &fd) != napi_ok || fd < 0 ||
      fd > INT32_MAX) {
    napi_throw_error(env, NULL, "dupFd(fd)");
    return NULL;
  }
  int r = fcntl((int)fd, F_DUPFD_CLOEXEC, 0);
  napi_create_int32(env, r < 0 ? -errno : r, &out);
  return out;
}

static napi_value js_trim_heap(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value out;
#ifdef __GLIBC__
  /* musl and others have no malloc_trim; their allocators give memory back as they see fit. */
  napi_get_boolean(env, malloc_trim(0) == 1, &out);
#else
  napi_get_boolean(env, false, &out);
#endif
  return out;
}

void serving_init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"dupFd", NULL, js_dup_fd, NULL, NULL, NULL, napi_default, NULL},
      {"trimHeap", NULL, js_trim_heap, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
}
