/**
 * The built daemon (dist/main.js) as a child process for tests: start it, wait for a log line,
 * call its API over a real socket. Needs `npm run build` first (npm test does it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'main.js');

export interface Daemon {
  proc: ChildProcess;
  out: () => string;
  exited: Promise<number | null>;
}

const started: ChildProcess[] = [];
const strayPids: number[] = [];
const dirs: string[] = [];

/** Starts dist/main.js with only PATH and HOME from this environment, plus `env`. */
export function run(args: string[], env: Record<string, string> = {}): Daemon {
  const proc = spawn(process.execPath, [MAIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(proc);
  let text = '';
  proc.stdout!.on('data', (c) => (text += c));
  proc.stderr!.on('data', (c) => (text += c));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return { proc, out: () => text, exited };
}

export async function waitFor(d: Daemon, re: RegExp, ms = 15_000): Promise<RegExpMatchArray> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const m = d.out().match(re);
    if (m) return m;
    if (d.proc.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${re}; output so far:\n${d.out()}`);
}

export async function api<T = Record<string, unknown>>(port: number, method: string, path: string, body?: unknown, token?: string) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { ...(token ? { 'lucky-admin-token': token } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(5000),
  });
  return (await res.json()) as T & { ret: number; msg?: string };
}

export async function login(port: number, password: string, account = 'admin') {
  return api<{ token: string }>(port, 'POST', '/api/login', { Account: account, Password: password });
}

export function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'lucky-proc-'));
  dirs.push(d);
  return d;
}

/** A pid the test did not start itself (a self-restarted daemon): killed by `cleanUp`. */
export function adoptPid(pid: number): void {
  strayPids.push(pid);
}

/** Resident memory of a process in bytes, from /proc: `VmRSS` now, `VmHWM` its peak. */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** Starts the peak (VmHWM) over from the resident size now (Linux's clear_refs, value 5). */
export function resetPeakMemory(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** For afterAll: kills what is still running and removes the temp dirs. */
export function cleanUp(): void {
  for (const p of started.splice(0)) if (p.exitCode === null) p.kill('SIGKILL');
  for (const pid of strayPids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}
