// Small helpers the benchmarks share: free ports, process RSS, waiting for a line, printing a table.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

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
  return { call, api };
}

export const mb = (n) => `${(n / 1e6).toFixed(1)} MB`;

/**
 * Imports a test helper written in TypeScript (test helpers are not compiled into the build): the
 * file is transpiled on its own, so it may import only Node's modules.
 */
export async function importTestHelper(file) {
  const { mkdtempSync, readFileSync, rmSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { pathToFileURL } = await import('node:url');
  const ts = (await import('typescript')).default;
  const out = ts.transpileModule(readFileSync(file, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    fileName: file,
  });
  const dir = mkdtempSync(join(tmpdir(), 'lucky-bench-helper-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const js = join(dir, 'helper.mjs');
  writeFileSync(js, out.outputText);
  return import(pathToFileURL(js).href);
}
