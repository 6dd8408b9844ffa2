/**
 * The Node options Lucky runs with, wherever it is started for good: npm start (scripts/start.mjs),
 * the systemd unit, the benchmarks; docker/Dockerfile sets the same value.
 *
 * --max-semi-space-size=1: V8 grows the young generation to 16 MB per semi-space while the daemon
 * starts and keeps it afterwards; an idle daemon on a router has no use for it (about 18 MB).
 * --v8-pool-size=1: one V8 helper thread instead of one per core; each keeps its own malloc arena
 * (about 4 MB). bench/daemon prints idle RSS with these (and without them, COMPARE_DEFAULT_V8=1);
 * bench/web shows what they cost in throughput.
 */
export const DAEMON_NODE_OPTIONS = '--max-semi-space-size=1 --v8-pool-size=1';
