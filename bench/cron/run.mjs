// Scheduled tasks: 1 000 tasks every second for 60 s. Lucky's engine (its timers, run bookkeeping
// and the run history in a real lucky.db, tasks with no actions) next to croner's own scheduler (the
// library the engine computes its times with) and node-cron's, both with an empty handler, each in
// its own process, one after the other in the same run. Firing
// delay = how far into its second each run started (p50/p99); RSS after a forced GC, after a
// 5 s warm-up and at the end. BENCH_CRON_SECONDS / BENCH_CRON_TASKS change the size.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mb, printTable } from '../lib.mjs';

const SECONDS = Number(process.env.BENCH_CRON_SECONDS ?? 60);
const TASKS = Number(process.env.BENCH_CRON_TASKS ?? 1000);
const here = fileURLToPath(import.meta.url);

if (process.argv[2] === 'child') await child(process.argv[3]);
else await main();

async function main() {
  const rows = [];
  const names = { lucky: "Lucky's engine (history in SQLite)", croner: "croner's scheduler, empty handler", 'node-cron': "node-cron's scheduler, empty handler" };
  for (const mode of ['lucky', 'croner', 'node-cron']) {
    const out = await new Promise((resolve, reject) => {
      const p = spawn(process.execPath, ['--expose-gc', here, 'child', mode], { stdio: ['ignore', 'pipe', 'inherit'] });
      let text = '';
      p.stdout.on('data', (c) => (text += c));
      p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(text)) : reject(new Error(`${mode} exited ${code}`))));
    });
    rows.push([names[mode], out.runs, `${out.expected}`, `${out.p50} ms`, `${out.p99} ms`, `${out.max} ms`, mb(out.rssStart), mb(out.rssEnd), mb(out.rssEnd - out.rssStart)]);
  }
  printTable(`cron: ${TASKS} tasks every second for ${SECONDS} s`, [['scheduler', 'runs', 'expected', 'delay p50', 'delay p99', 'max', 'RSS after warm-up', 'RSS at end', 'growth'], ...rows]);
}

function pct(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
}

function rss() {
  globalThis.gc?.();
  return process.memoryUsage().rss;
}

async function child(mode) {
  const delays = [];
  let measuring = false;
  const record = (start) => {
    if (measuring) delays.push(start % 1000);
  };
  const stops = [];
  let dir;
  if (mode === 'croner') {
    // The daemon's own copy (pinned in the workspace catalog).
    const { Cron } = await import(join(here, '..', '..', '..', 'apps', 'daemon', 'node_modules', 'croner', 'dist', 'croner.js'));
    for (let i = 0; i < TASKS; i++) {
      const job = new Cron('* * * * * *', () => record(Date.now()));
      stops.push(() => job.stop());
    }
  } else if (mode === 'node-cron') {
    // A bench-only dependency of the workspace root (package.json), never of the daemon.
    const cron = (await import('node-cron')).default;
    for (let i = 0; i < TASKS; i++) {
      const job = cron.schedule('* * * * * *', () => record(Date.now()));
      stops.push(() => job.stop());
    }
  } else {
    const dist = join(here, '..', '..', '..', 'apps', 'daemon', 'dist');
    const { openDb, migrate } = await import(join(dist, 'core', 'db.js'));
    const { CronHistory, cronMigrations } = await import(join(dist, 'modules', 'cron', 'cron.history.js'));
    const { CronEngine } = await import(join(dist, 'modules', 'cron', 'cron.engine.js'));
    dir = mkdtempSync(join(tmpdir(), 'lucky-bench-cron-'));
    const db = openDb(dir);
    migrate(db, 'cron', cronMigrations);
    const history = new CronHistory(db);
    const add = history.add.bind(history);
    history.add = (task, run, bounds) => {
      record(run.start);
      return add(task, run, bounds);
    };
    const engine = new CronEngine({
      actions: {}, webhooks: {}, backups: async () => ({}), childEnv: {}, dataDir: dir, outputBytes: () => 16384,
      history, bounds: () => ({ rows: 100, bytes: 1 << 20 }), stillOn: () => true,
    });
    const task = { name: 't', enable: true, schedule: { kind: 'cron', expr: '* * * * * *', every: 1 }, timezone: 'UTC', start: null, end: null, overlap: 'skip', catchUp: 'skip', actions: [], note: '' };
    for (let i = 0; i < TASKS; i++) {
      const key = `task${i}`;
      const handle = await engine.start(task, { key, name: key, note: () => undefined, logLines: () => undefined, report: () => undefined, claim: () => undefined, settings: () => ({}), log: {} });
      stops.push(() => handle.stop());
    }
    stops.push(() => engine.close(), () => db.close());
  }
  await new Promise((r) => setTimeout(r, 5000));
  const rssStart = rss();
  measuring = true;
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  measuring = false;
  const rssEnd = rss();
  for (const s of stops) await s();
  if (dir) rmSync(dir, { recursive: true, force: true });
  delays.sort((a, b) => a - b);
  process.stdout.write(JSON.stringify({ runs: delays.length, expected: TASKS * SECONDS, p50: pct(delays, 50), p99: pct(delays, 99), max: delays.at(-1), rssStart, rssEnd }));
  process.exit(0);
}
