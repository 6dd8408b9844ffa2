import { defineProject } from 'vitest/config';
import react from '@vitejs/plugin-react';

// The console's unit and component tests (jsdom); the browser tests are vitest.e2e.config.ts.
export default defineProject({
  plugins: [react()],
  test: {
    name: 'console',
    include: ['src/**/*.test.{ts,tsx}'],
    environment: 'jsdom',
    // One worker takes every file in turn, jsdom and the imports set up once: a fresh worker per file
    // cost two seconds each, for files that run in milliseconds. Tests leave no state behind them
    // (the storage, the query cache, notices and the DOM are reset by each file that uses them).
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
