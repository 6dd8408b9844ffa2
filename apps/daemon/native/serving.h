/* What moving web serving between threads asks of the system (serving.c), added to the addon's exports by relay.c's init. */
#ifndef LUCKY_SERVING_H
#define LUCKY_SERVING_H
#include <node_api.h>
void serving_init(napi_env env, napi_value exports);
#endif
