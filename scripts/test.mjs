// `npm test`: install what is missing (npm packages and the Debian packages tests use), build, and
// run every test on two Nodes: this machine's and the pinned LTS (scripts/lib/node-lts.json,
// fetched from the npm registry), each with its own native builds. The two runs go side by side:
// each keeps one test file at a time, and the suite mostly waits on sockets, child processes and
// timers, so two runs on two cores take far less than two runs one after the other (DEVELOPING.md
// has the figures). It ends with the plain line `N passed, N failed` over both runs; each failure
// is listed first with the Node it failed on.
// LUCKY_TEST_LTS=0 runs this machine's Node alone (a quicker loop while developing).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { delimiter, dirname, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { env, install, log, nativeAddons, root, thisNode, turbo } from './lib/bootstrap.mjs';
import { ensureDebPackages } from './lib/apt.mjs';
import { LTS } from './lib/ltsnode.mjs';

/** The LTS fetched and its better-sqlite3 built in a child process (a compile of a minute or more). */
function prepareLts() {
  const child = spawn(process.execPath, [join(root, 'scripts', 'lib', 'ltsprep.mjs')], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  return new Promise((resolve) => child.on('close', (code) => resolve(code === 0 ? JSON.parse(out.trim() || 'null') : null)));
}

ensureDebPackages();
install();
const major = (v) => v.split('.')[0];
const sameLine = major(thisNode.version) === major(LTS.version);
if (sameLine) log(`this machine's Node ${thisNode.version} is of the LTS line already: one run`);
const wantLts = process.env.LUCKY_TEST_LTS !== '0' && !sameLine;
const ltsReady = wantLts ? prepareLts() : Promise.resolve(null);
// Meanwhile the workspace's build (the same as `npm run build`), with this Node's addons.
turbo('build');
nativeAddons(thisNode);

const nodes = [thisNode];
/** Failures found before any test ran (an LTS that could not be had), counted in the last line. */
const setupFailures = [];
const lts = await ltsReady;
if (wantLts) {
  if (!lts) setupFailures.push(`node ${LTS.version}: not available here, its run did not happen (see above)`);
  else {
    // After turbo: its cache takes in what is in dist/ when its build ends, half-written files too.
    nativeAddons(lts);
    nodes.push(lts);
  }
}

const outRoot = join(root, 'test-output');
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
// Tests that switch Nodes (nodeswitch.test.ts) find every Node of this run here.
const nodesVar = JSON.stringify(nodes.map(({ bin, version, abi, platform, arch }) => ({ bin, version, abi, platform, arch })));
const started = Date.now();

function runOn(node) {
  const label = `node ${node.version}`;
  const outDir = join(outRoot, `node-${node.version}`);
  mkdirSync(outDir, { recursive: true });
  const report = join(outDir, 'vitest-report.json');
  rmSync(report, { force: true });
  const args = [vitest, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)];
  // PATH first names this run's Node: what a test starts as plain `node` is the Node under test too.
  const child = spawn(node.bin, args, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...env,
      PATH: `${dirname(node.bin)}${delimiter}${env.PATH}`,
      LUCKY_TEST_OUTPUT: outDir,
      LUCKY_TEST_NODES: nodesVar,
      // What does not depend on the Node is shared out rather than done twice: the fuzzing minute is
      // split between the runs (each with its own random seed), and so are the browser tests (each
      // file in one run, with its screenshots: they drive the console, the browser's code).
      LUCKY_FUZZ_SECONDS: String(Math.ceil(25 / nodes.length)),
      LUCKY_TEST_SHARE: `${nodes.indexOf(node)}/${nodes.length}`,
    },
  });
  const prefix = nodes.length > 1 ? `[${major(node.version)}] ` : '';
  for (const [from, to] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ]) {
    createInterface({ input: from, crlfDelay: Infinity }).on('line', (l) => to.write(`${prefix}${l}\n`));
  }
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      log(`${label}: tests took ${Math.round((Date.now() - started) / 1000)} s`);
      resolve({ label, report, code: code ?? (signal ? 1 : 0) });
    }),
  );
}

/** A failure's first lines, indented under its FAIL line. */
function why(messages) {
  const text = (messages ?? []).join('\n').replace(/\x1b\[[0-9;]*m/g, '');
  const lines = text.split('\n').map((l) => l.trimEnd()).filter(Boolean).slice(0, 4);
  return lines.length ? `\n${lines.map((l) => `    ${l.slice(0, 300)}`).join('\n')}` : '';
}

/** Counts from vitest's JSON report, and a line per failure naming the Node. */
function tally({ label, report, code }) {
  const t = { passed: 0, failed: 0, skipped: 0, lines: [] };
  if (!existsSync(report)) {
    t.failed = 1;
    t.lines.push(`FAIL [${label}] vitest wrote no report (exit ${code})`);
    return t;
  }
  const j = JSON.parse(readFileSync(report, 'utf8'));
  t.passed = j.numPassedTests ?? 0;
  t.skipped = (j.numPendingTests ?? 0) + (j.numTodoTests ?? 0);
  for (const f of j.testResults ?? []) {
    const file = relative(root, f.name);
    const failedTests = (f.assertionResults ?? []).filter((a) => a.status === 'failed');
    // The first lines of the reason too: a CI log is often all there is of a failure seen once.
    for (const a of failedTests) t.lines.push(`FAIL [${label}] ${file} > ${a.fullName ?? a.title}${why(a.failureMessages)}`);
    // A file that failed to load, or failed in a hook outside its tests, has no failed test to count: one failure.
    if (f.status === 'failed' && failedTests.length === 0) t.lines.push(`FAIL [${label}] ${file}: ${(f.message ?? '').split('\n')[0] || 'failed outside its tests'}`);
  }
  t.failed = t.lines.length;
  if (code !== 0 && t.failed === 0) {
    t.failed = 1;
    t.lines.push(`FAIL [${label}] vitest exited ${code} with every test passed`);
  }
  return t;
}

const results = (await Promise.all(nodes.map(runOn))).map(tally);
let passed = 0;
let failed = setupFailures.length;
let skipped = 0;
for (const line of setupFailures) process.stdout.write(`FAIL ${line}\n`);
results.forEach((t, i) => {
  passed += t.passed;
  failed += t.failed;
  skipped += t.skipped;
  for (const line of t.lines) process.stdout.write(`${line}\n`);
  log(`node ${nodes[i].version}: ${t.passed} passed, ${t.failed} failed${t.skipped ? `, ${t.skipped} skipped` : ''}`);
});
log(`tests took ${Math.round((Date.now() - started) / 1000)} s`);
process.stdout.write(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
process.exit(failed === 0 ? 0 : 1);
