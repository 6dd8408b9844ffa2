import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineProject } from 'vitest/config';

/**
 * LUCKY_TEST_SHARE=`i/n` (scripts/test.mjs, one share per Node run): this run's files, every n-th
 * from the i-th by name. The browser tests exercise the console, which is the browser's code; the
 * daemon under them is tested on every Node by its own tests. Unset: every file.
 */
function shareOf(spec: string | undefined): string[] {
  const all = readdirSync(join(dirname(fileURLToPath(import.meta.url)), 'e2e')).filter((f) => f.endsWith('.test.ts')).sort();
  const m = /^(\d+)\/(\d+)$/.exec(spec ?? '');
  if (!m) return all.map((f) => `e2e/${f}`);
  const [i, n] = [Number(m[1]), Number(m[2])];
  return all.filter((_, k) => k % n === i).map((f) => `e2e/${f}`);
}

// The browser tests: the built daemon and Debian's chromium driven by playwright-core (e2e/harness.ts).
export default defineProject({
  test: {
    name: 'console-e2e',
    include: shareOf(process.env.LUCKY_TEST_SHARE),
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
