/**
 * Runs a real client (lftp, curl, sftp, scp, rclone…) as a child process with a time limit, HOME
 * in the temp directory (no user's configuration leaks in) and a UTF-8 locale. Never rejects: the
 * exit code and the output are the test's to judge.
 */
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';

export interface Run {
  code: number;
  out: string;
  err: string;
}

export function runTool(cmd: string, args: string[], o: { env?: Record<string, string>; cwd?: string; timeout?: number } = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: o.timeout ?? 60_000, cwd: o.cwd, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, HOME: tmpdir(), LC_ALL: 'C.UTF-8', ...o.env } }, (e, out, err) => {
      const code = e ? (typeof (e as { code?: unknown }).code === 'number' ? (e as { code: number }).code : -1) : 0;
      resolve({ code, out: String(out), err: String(err) });
    });
  });
}
