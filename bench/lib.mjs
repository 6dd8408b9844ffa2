// Small helpers the benchmarks share: free ports, process RSS, waiting for a line, printing a table,
// the built daemon started and logged in to, a storage shared over WebDAV.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DAEMON_DIST = join(ROOT, 'apps/daemon/dist');
export const DAEMON_MAIN = join(DAEMON_DIST, 'main.js');
/** Clock ticks per second, the unit of CPU times in /proc. */
export const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Resident set size of a process in bytes (Linux /proc). */
export function rssOf(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

/** CPU time of a process, every thread (utime + stime, Linux /proc), in seconds. */
export function cpuSecondsOf(pid) {
  // Fields 14 and 15 of stat, 12 and 13 after "pid (comm) ".
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / CLK_TCK;
}

export function waitForOutput(proc, re, ms = 20_000) {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${re}: ${text}`)), ms);
    const on = (c) => {
      text += c;
      if (re.test(text)) {
        clearTimeout(timer);
        resolve(text);
      }
    };
    proc.stdout?.on('data', on);
    proc.stderr?.on('data', on);
    proc.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`exited before ${re}: ${text}`));
    });
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The children a benchmark starts and what it leaves on disk: the children are killed and the
 * removals run however the benchmark ends (done, failed, Ctrl-C), once, children first so nothing
 * is removed under a running server.
 */
export function reaper() {
  const children = new Set();
  const removals = [];
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    for (const p of children) p.kill('SIGKILL');
    for (const fn of removals.reverse()) {
      try {
        fn();
      } catch {
        // best effort: a temp dir left behind is the OS's to clean
      }
    }
  };
  process.on('exit', finish);
  process.on('SIGINT', () => process.exit(130));
  return {
    track(p) {
      children.add(p);
      p.once('exit', () => children.delete(p));
      return p;
    },
    atExit(fn) {
      removals.push(fn);
    },
    finish,
  };
}

/** What a child printed last (stdout and stderr), for the message when it fails. */
export function outputTail(p, n = 3000) {
  let tail = '';
  const keep = (c) => (tail = (tail + c).slice(-n));
  p.stdout?.on('data', keep);
  p.stderr?.on('data', keep);
  return () => tail;
}

/** Asks a child to end with `signal`, and kills it when it has not after `graceMs`. */
export async function stop(p, signal = 'SIGTERM', graceMs = 5000) {
  p.kill(signal);
  await Promise.race([new Promise((r) => p.once('exit', r)), sleep(graceMs)]);
  p.kill('SIGKILL');
}

/** Samples VmRSS of pid every 100 ms while fn runs. */
export async function withRss(pid, fn) {
  const samples = [rssOf(pid)];
  const timer = setInterval(() => {
    try {
      samples.push(rssOf(pid));
    } catch {
      // gone
    }
  }, 100);
  try {
    return { value: await fn(), samples };
  } finally {
    clearInterval(timer);
    samples.push(rssOf(pid));
  }
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export function printTable(title, rows) {
  console.log(`\n${title}`);
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  for (const r of rows) console.log('  ' + r.map((c, i) => String(c).padEnd(widths[i])).join('  '));
}

/**
 * Logs in to a daemon the bench started, as admin. `call(method, path, body)` answers the API's
 * envelope as it is; `api` throws on `ret` ≠ 0 with the answer and `context()` (the daemon's output…).
 * `timeoutMs` bounds each call (none by default: a DDNS sync may be asked to wait a minute).
 */
export async function adminApi(base, password, { context = () => '', timeoutMs } = {}) {
  const login = await (
    await fetch(`${base}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ Account: 'admin', Password: password }) })
  ).json();
  if (login.ret !== 0) throw new Error(`login failed: ${JSON.stringify(login)}`);
  const call = async (method, path, body) => {
    const res = await fetch(`${base}${path}`, {
      ...(timeoutMs ? { signal: AbortSignal.timeout(timeoutMs) } : {}),
      method,
      headers: { 'lucky-lang': 'en_US', 'lucky-admin-token': login.token, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return res.json();
  };
  const api = async (method, path, body) => {
    const j = await call(method, path, body);
    if (j.ret !== 0) throw new Error(`${method} ${path}: ${JSON.stringify(j)}${context()}`);
    return j;
  };
  return { call, api, token: login.token };
}

export function requireBuiltDaemon() {
  if (!existsSync(DAEMON_MAIN)) {
    console.error(`${DAEMON_MAIN} is missing: run npm run build first`);
    process.exit(1);
  }
}

/**
 * The built daemon on a free loopback port, with the NODE_OPTIONS it ships with, logged in to as
 * admin (`api`, `call`, `token` as adminApi's). Pinned to `cpu` with every thread it has: equal cores
 * with what it is measured against. taskset execs node, so `p.pid` is the daemon's (for /proc).
 * Exits the benchmark when the daemon is not built.
 */
export async function startBenchDaemon({ cpu, dataDir, password, nodeArgs = [], env = {} }) {
  requireBuiltDaemon();
  const { DAEMON_NODE_OPTIONS } = await import(pathToFileURL(join(DAEMON_DIST, 'nodeoptions.js')).href);
  const port = await freePort();
  const p = spawn('taskset', ['-c', cpu, process.execPath, ...nodeArgs, DAEMON_MAIN, '--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LUCKY_ADMIN_PASSWORD: password, LUCKY_ADMIN_USER: 'admin', NODE_ENV: 'production', NODE_OPTIONS: DAEMON_NODE_OPTIONS, ...env },
  });
  const tail = outputTail(p);
  await waitForOutput(p, /listening on/);
  const base = `http://127.0.0.1:${port}`;
  const client = await adminApi(base, password, { context: () => `; daemon output:\n${tail()}`, timeoutMs: 15_000 });
  return { p, port, base, tail, nodeOptions: DAEMON_NODE_OPTIONS, ...client };
}

/**
 * A storage on `dir`, a storage user with every right on it, and a running WebDAV rule serving it as
 * the root on a free loopback port (as apps/daemon/src/modules/webdav/testing/daemon.ts does).
 */
export async function shareOverWebdav(api, dir, user, password) {
  const { key: storage } = await api('POST', '/api/storage/rules', { name: 'bench', path: dir });
  await api('PUT', '/api/storage/configure', {
    users: [{ account: user, password, permissions: { [storage]: { read: true, write: true, delete: true } } }],
    anonymous: { enable: false, storages: [] },
  });
  const port = await freePort();
  const { key } = await api('POST', '/api/webdav/rules', { name: 'bench', address: '127.0.0.1', port, mounts: [{ name: '', storage }] });
  for (let i = 0; ; i++) {
    const { rule } = await api('GET', `/api/webdav/rules/${key}`);
    if (rule.status?.state === 'running') break;
    if (rule.status?.state === 'error' || i > 200) throw new Error(`webdav rule not running: ${JSON.stringify(rule.status)}`);
    await sleep(25);
  }
  return { storage, key, port };
}

export const mb = (n) => `${(n / 1e6).toFixed(1)} MB`;

/**
 * Imports a test helper written in TypeScript (test helpers are not compiled into the build): the
 * file is transpiled, its relative imports pointed at the build's compiled files where there are
 * some (apps/daemon/dist for apps/daemon/src) and transpiled the same way where not (other test
 * helpers), its package imports resolved from where it lives.
 */
export async function importTestHelper(file) {
  const { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } = await import('node:fs');
  const { createRequire } = await import('node:module');
  const { tmpdir } = await import('node:os');
  const { dirname, join, relative, resolve } = await import('node:path');
  const { pathToFileURL } = await import('node:url');
  const ts = (await import('typescript')).default;
  const src = join(ROOT, 'apps/daemon/src');
  const dir = mkdtempSync(join(tmpdir(), 'lucky-bench-helper-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const done = new Map();
  const emit = (tsFile) => {
    if (done.has(tsFile)) return done.get(tsFile);
    const js = join(dir, `${done.size}.mjs`);
    done.set(tsFile, js);
    const out = ts.transpileModule(readFileSync(tsFile, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      fileName: tsFile,
    });
    const code = out.outputText.replace(/(from\s+|import\()(['"])([^'"]+)\2/g, (whole, head, q, spec) => {
      if (spec.startsWith('node:')) return whole;
      if (!spec.startsWith('.')) return `${head}${q}${pathToFileURL(createRequire(tsFile).resolve(spec)).href}${q}`;
      const target = resolve(dirname(tsFile), spec);
      const built = join(DAEMON_DIST, relative(src, target));
      if (!relative(src, target).startsWith('..') && existsSync(built)) return `${head}${q}${pathToFileURL(built).href}${q}`;
      return `${head}${q}${pathToFileURL(emit(target.replace(/\.js$/, '.ts'))).href}${q}`;
    });
    writeFileSync(js, code);
    return js;
  };
  return import(pathToFileURL(emit(resolve(file))).href);
}
