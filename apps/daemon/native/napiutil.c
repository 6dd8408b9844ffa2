/* Small helpers of the addon's JS API: arguments, numbers, errors thrown as JS errors. */
#define NAPI_VERSION 8
#include "napiutil.h"

#include <stdio.h>
#include <string.h>

int args(napi_env env, napi_callback_info info, size_t want, napi_value *argv) {
  size_t argc = want;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  return argc >= want;
}

int get_int(napi_env env, napi_value v, int64_t *out) { return napi_get_value_int64(env, v, out) == napi_ok; }

napi_value number(napi_env env, double d) {
  napi_value v;
  napi_create_double(env, d, &v);
  return v;
}

napi_value throw_err(napi_env env, const char *msg) {
  napi_throw_error(env, NULL, msg);
  return NULL;
}

napi_value throw_errno(napi_env env, const char *what, int err) {
  char msg[128];
  snprintf(msg, sizeof msg, "%s: %s", what, strerror(err));
  return throw_err(env, msg);
}
