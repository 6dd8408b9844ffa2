/* The file reads of the native addon (files.c), added to the addon's exports by relay.c's init. */
#ifndef LUCKY_FILES_H
#define LUCKY_FILES_H
#include <node_api.h>
void files_init(napi_env env, napi_value exports);
#endif
