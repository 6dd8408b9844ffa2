/**
 * A command the daemon runs for the user (a scheduled task's action, a device's shutdown):
 * `/bin/sh -c` in its own process group (detached), so that at the timeout, or when the caller
 * aborts, the whole group dies — the shell and whatever it started. Output (stdout and stderr
 * interleaved) is kept bounded: its beginning and its end. How it ended is told as data; each
 * caller says it in its own messages.
 */
import { spawn } from 'node:child_process';

export interface CommandSpec {
  line: string;
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  /** Bytes of output kept. */
  maxOutput: number;
  /** Aborted when the daemon stops the task. */
  signal?: AbortSignal;
}

/** How a command ended. */
export type CommandEnd =
  | { kind: 'exit'; code: number }
  | { kind: 'signal'; signal: string }
  | { kind: 'timeout'; seconds: number }
  /** The caller aborted it (the daemon stopped the task). */
  | { kind: 'stopped' }
  /** It could not start (no shell, bad folder...). */
  | { kind: 'failed'; detail: string };

export interface CommandResult {
  /** Exited with code 0. */
  ok: boolean;
  end: CommandEnd;
  output: string;
  truncated: boolean;
}

/** Keeps the first and the last half of `max` bytes of a stream. */
export class BoundedOutput {
  private head: Buffer[] = [];
  private headLen = 0;
  private tail: Buffer[] = [];
  private tailLen = 0;
  private dropped = 0;

  constructor(private max: number) {}

  push(chunk: Buffer): void {
    const half = Math.floor(this.max / 2);
    if (this.headLen < half) {
      const take = chunk.subarray(0, half - this.headLen);
      this.head.push(take);
      this.headLen += take.length;
      chunk = chunk.subarray(take.length);
    }
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    this.tailLen += chunk.length;
    const keep = this.max - half;
    if (this.tailLen > keep * 2) this.trim(keep);
  }

  private trim(keep: number): void {
    const all = Buffer.concat(this.tail);
    this.dropped += all.length - keep;
    this.tail = [all.subarray(all.length - keep)];
    this.tailLen = keep;
  }

  get truncated(): boolean {
    return this.dropped > 0 || this.tailLen > this.max - Math.floor(this.max / 2);
  }

  text(): string {
    const keep = this.max - Math.floor(this.max / 2);
    if (this.tailLen > keep) this.trim(keep);
    const head = Buffer.concat(this.head).toString('utf8');
    const tail = Buffer.concat(this.tail).toString('utf8');
    return this.dropped > 0 ? `${head}\n[… ${this.dropped} bytes …]\n${tail}` : head + tail;
  }
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone already
  }
}

export function runCommand(spec: CommandSpec): Promise<CommandResult> {
  return new Promise((resolve) => {
    const out = new BoundedOutput(spec.maxOutput);
    let ended: 'timeout' | 'stopped' | null = null;
    let done = false;
    const finish = (r: Omit<CommandResult, 'output' | 'truncated'>) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      spec.signal?.removeEventListener('abort', onAbort);
      resolve({ ...r, output: out.text(), truncated: out.truncated });
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn('/bin/sh', ['-c', spec.line], { cwd: spec.cwd, env: spec.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      resolve({ ok: false, end: { kind: 'failed', detail: (err as Error).message }, output: '', truncated: false });
      return;
    }
    const end = (why: 'timeout' | 'stopped') => {
      ended = why;
      // TERM first so the group may clean up; KILL shortly after for whatever ignores it.
      killGroup(child.pid, 'SIGTERM');
      setTimeout(() => killGroup(child.pid, 'SIGKILL'), 1000).unref();
    };
    const timer = setTimeout(() => end('timeout'), spec.timeoutMs);
    let graceTimer: NodeJS.Timeout | undefined;
    const onAbort = () => end('stopped');
    spec.signal?.addEventListener('abort', onAbort);
    if (spec.signal?.aborted) onAbort();
    child.stdout!.on('data', (c: Buffer) => out.push(c));
    child.stderr!.on('data', (c: Buffer) => out.push(c));
    child.on('error', (err) => finish({ ok: false, end: { kind: 'failed', detail: err.message } }));
    const result = (code: number | null, sig: NodeJS.Signals | null): Omit<CommandResult, 'output' | 'truncated'> => {
      if (ended === 'timeout') return { ok: false, end: { kind: 'timeout', seconds: Math.round(spec.timeoutMs / 1000) } };
      if (ended === 'stopped') return { ok: false, end: { kind: 'stopped' } };
      if (sig) return { ok: false, end: { kind: 'signal', signal: sig } };
      return { ok: code === 0, end: { kind: 'exit', code: code ?? -1 } };
    };
    child.on('exit', (code, sig) => {
      // A background process left behind may hold the pipes open: the output read so far is enough.
      graceTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish(result(code, sig));
      }, 500);
    });
    child.on('close', (code, sig) => finish(result(code, sig)));
  });
}
