// `npm test`: install what is missing (npm packages and the Debian packages tests use), build,
// run every test once with vitest, and end with the plain line `N passed, N failed`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build, env, log, pnpm, root } from './lib/bootstrap.mjs';
import { ensureDebPackages } from './lib/apt.mjs';

ensureDebPackages();
build();

const outDir = join(root, 'test-output');
mkdirSync(outDir, { recursive: true });
const report = join(outDir, 'vitest-report.json');
rmSync(report, { force: true });
const [cmd, pre] = pnpm();
const started = Date.now();
const r = spawnSync(
  cmd,
  [...pre, 'exec', 'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)],
  { cwd: root, stdio: 'inherit', env: { ...env, LUCKY_TEST_OUTPUT: outDir } },
);

let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(report)) {
  const j = JSON.parse(readFileSync(report, 'utf8'));
  passed = j.numPassedTests ?? 0;
  failed = (j.numFailedTests ?? 0) + (j.numRuntimeErrorTestSuites ?? 0);
  skipped = (j.numPendingTests ?? 0) + (j.numTodoTests ?? 0);
  // A file that failed to load has no tests to count: count it as one failure.
  for (const f of j.testResults ?? []) if (f.status === 'failed' && (f.assertionResults ?? []).length === 0) failed++;
} else {
  log('vitest wrote no report');
  failed = Math.max(failed, 1);
}
if (r.status !== 0 && failed === 0) failed = 1;
log(`tests took ${Math.round((Date.now() - started) / 1000)} s`);
process.stdout.write(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
process.exit(failed === 0 && r.status === 0 ? 0 : 1);
