/**
 * Upper bounds, in seconds, of the buckets a web rule's request durations are counted in, by both
 * engines (the native edge keeps the same list in microseconds: native/edge/client.c). Without zod:
 * web serving threads read it through `@lucky/contracts/runtime`.
 */
export const WEB_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;
