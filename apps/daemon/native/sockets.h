/* The socket openers of the native addon (sockets.c), added to the addon's exports by relay.c's init. */
#ifndef LUCKY_SOCKETS_H
#define LUCKY_SOCKETS_H
#include <node_api.h>
void sockets_init(napi_env env, napi_value exports);
#endif
