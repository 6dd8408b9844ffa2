/* One access log record: the fixed figures, then its texts one after another in `text`. */
#ifndef LUCKY_EDGE_LOG_H
#define LUCKY_EDGE_LOG_H

#include <stdint.h>

/* As the Node path truncates them. */
#define LOG_PATH_MAX 2048
#define LOG_UA_MAX 512
#define LOG_HOST_MAX 512

struct LogEntry {
  double time; /* wall-clock ms when the request came */
  double ms;
  int status;
  uint64_t bytes;
  uint32_t ip_len, method_len, host_len, path_len, ua_len, sub_len;
  char text[];
};

#endif
