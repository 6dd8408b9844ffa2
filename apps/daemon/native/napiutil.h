/* Small helpers of the addon's JS API (relay.c, relay_thread.c, sockets.c): arguments, numbers, errors. */
#ifndef LUCKY_NAPIUTIL_H
#define LUCKY_NAPIUTIL_H
#include <node_api.h>
#include <stdint.h>

/* The first `want` arguments into argv; false when fewer were given. */
int args(napi_env env, napi_callback_info info, size_t want, napi_value *argv);
int get_int(napi_env env, napi_value v, int64_t *out);
napi_value number(napi_env env, double d);
napi_value throw_err(napi_env env, const char *msg);
napi_value throw_errno(napi_env env, const char *what, int err);
#endif
