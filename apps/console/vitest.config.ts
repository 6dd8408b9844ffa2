import { defineProject } from 'vitest/config';
import react from '@vitejs/plugin-react';

export default defineProject({
  plugins: [react()],
  test: {
    name: 'console',
    include: ['src/**/*.test.{ts,tsx}', 'e2e/**/*.test.ts'],
    environment: 'jsdom',
    // Node 25 and later have a Web Storage of their own, a global localStorage that stands in front of
    // jsdom's (and is missing without --localstorage-file): the console's code meets jsdom's, as in a browser.
    execArgv: Number(process.versions.node.split('.')[0]) >= 25 ? ['--no-experimental-webstorage'] : [],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Each e2e file starts a daemon and a Chromium; on a 2-core machine several at once starve each
    // other into timeouts. The console's files run one after another (unit files take seconds).
    fileParallelism: false,
    // The daemon tests run beside these on the same two cores: a page that answers in 1 s when the
    // machine is quiet may need several while litmus or a benchmark-sized test runs next door.
    expect: { poll: { timeout: 10_000 } },
  },
});
