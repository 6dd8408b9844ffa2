import { defineProject } from 'vitest/config';

// The browser tests: the built daemon and Debian's chromium driven by playwright-core (e2e/harness.ts).
export default defineProject({
  test: {
    name: 'console-e2e',
    include: ['e2e/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Each file starts a daemon and a Chromium; on a 2-core machine several at once starve each
    // other into timeouts: one after another.
    fileParallelism: false,
    // The daemon tests run beside these on the same two cores: a page that answers in 1 s when the
    // machine is quiet may need several while litmus or a benchmark-sized test runs next door.
    expect: { poll: { timeout: 10_000 } },
  },
});
