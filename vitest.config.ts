import { defineConfig } from 'vitest/config';

// One run over every package so that `npm test` can count every test it ran.
export default defineConfig({
  test: {
    projects: ['packages/contracts', 'apps/daemon', 'apps/console', 'apps/console/vitest.e2e.config.ts'],
  },
});
