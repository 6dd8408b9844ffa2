import { defineProject } from 'vitest/config';

export default defineProject({
  // Plain functions over schemas: one worker for every file rather than a fresh one per file.
  test: { name: 'contracts', include: ['src/**/*.test.ts'], environment: 'node', isolate: false },
});
