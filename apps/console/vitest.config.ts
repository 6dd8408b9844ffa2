import { defineProject } from 'vitest/config';
import react from '@vitejs/plugin-react';

// The console's unit and component tests (jsdom); the browser tests are vitest.e2e.config.ts.
export default defineProject({
  plugins: [react()],
  test: {
    name: 'console',
    include: ['src/**/*.test.{ts,tsx}'],
    environment: 'jsdom',
    // Node 25 and later have a Web Storage of their own, a global localStorage that stands in front of
    // jsdom's (and is missing without --localstorage-file): the console's code meets jsdom's, as in a browser.
    execArgv: Number(process.versions.node.split('.')[0]) >= 25 ? ['--no-experimental-webstorage'] : [],
    // One worker takes every file in turn, jsdom and the imports set up once: a fresh worker per file
    // cost two seconds each, for files that run in milliseconds. Tests leave no state behind them
    // (the storage, the query cache, notices and the DOM are reset by each file that uses them).
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
