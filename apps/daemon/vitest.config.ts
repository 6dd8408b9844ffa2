import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'daemon',
    // native/: the fuzzers' bounded run sits beside its harnesses.
    include: ['src/**/*.test.ts', 'native/**/*.test.ts'],
    environment: 'node',
    // Engine tests open real sockets and child processes: give them room, never loop forever.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
