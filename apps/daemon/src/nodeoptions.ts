/**
 * The Node options Lucky runs with, wherever it is started for good: npm start (scripts/start.mjs),
 * the systemd unit, the benchmarks; docker/Dockerfile sets the same value.
 *
 * --max-semi-space-size=1: V8 grows the young generation to 16 MB per semi-space while the daemon
 * starts and keeps it afterwards; an idle daemon on a router has no use for it. bench/daemon prints
 * idle RSS with it (and without it, COMPARE_DEFAULT_V8=1).
 */
export const DAEMON_NODE_OPTIONS = '--max-semi-space-size=1';
