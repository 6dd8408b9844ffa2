/**
 * OpenSSH's sshd with its SFTP server (internal-sftp: sftp-server's code in sshd) as a real SFTP peer for the tests (remote SFTP storages): run
 * on loopback on a free port with a config, host key and authorized_keys of its own in a temp
 * directory, key login only (password login to sshd needs PAM or a password on a system account,
 * and the tests touch no account), as the user running the tests. sshd run as root wants its
 * privilege separation directory (/run/sshd): made when missing, as the package's own service would.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './harness.js';
import { tempDir } from './storages.js';

export const SSHD = '/usr/sbin/sshd';

export interface TestSshd {
  port: number;
  /** The temp directory of its config and keys; `root` is a folder in it to serve. */
  dir: string;
  root: string;
  /** The login (the user running the tests). */
  user: string;
  /** The client's private key (OpenSSH format, unencrypted), authorized for `user`. */
  clientKey: string;
  /** The host key's fingerprint as `ssh-keygen -l` prints it. */
  fingerprint: string;
  /** The sshd process now (a new one after `start`). */
  proc: ChildProcess;
  /** Starts it again on the same port (after `kill`). */
  start(): Promise<void>;
  /** SIGKILL to sshd and every session it forked (they run in their own sessions, so by parent pid). */
  kill(): void;
}

/** Every process below `pid`, from /proc's parent pids. */
function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may hold spaces and parentheses, so after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parent.set(Number(name), ppid);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [c, pp] of parent) if (pp === p && !out.includes(c)) (out.push(c), walk(c));
  };
  walk(pid);
  return out;
}

async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

export async function startSshd(): Promise<TestSshd> {
  const dir = tempDir('sshd');
  const root = join(dir, 'root');
  mkdirSync(root);
  const port = await freePort();
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'lucky-test-host', '-f', join(dir, 'host')]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'lucky-test-client', '-f', join(dir, 'client')]);
  const fingerprint = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', join(dir, 'host.pub')], { encoding: 'utf8' }).split(' ')[1]!;
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client.pub')));
  chmodSync(join(dir, 'authorized_keys'), 0o600);
  writeFileSync(
    join(dir, 'sshd_config'),
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      'PidFile none',
      'StrictModes no',
      'UsePAM no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin prohibit-password',
      // sftp-server's code inside sshd: the same server, without the user's shell in between (a
      // subsystem command is run by `$SHELL -c`, and an interactive-looking bash reads ~/.bashrc:
      // seconds per connection where it loads pyenv or nvm).
      'Subsystem sftp internal-sftp',
      'LogLevel ERROR',
      '',
    ].join('\n'),
  );
  if (process.getuid?.() === 0 && !existsSync('/run/sshd')) mkdirSync('/run/sshd', { mode: 0o755 });

  const t: TestSshd = {
    port,
    dir,
    root,
    user: userInfo().username,
    clientKey: readFileSync(join(dir, 'client'), 'utf8'),
    fingerprint,
    proc: null as unknown as ChildProcess,
    start: async () => {
      const p = spawn(SSHD, ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      p.stderr!.on('data', (c: Buffer) => (err += c.toString()));
      t.proc = p;
      for (let i = 0; i < 200; i++) {
        if (p.exitCode !== null) throw new Error(`sshd exited: ${err}`);
        if (await listening(port)) return;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`sshd did not listen on ${port}: ${err}`);
    },
    kill: () => {
      const pid = t.proc?.pid;
      if (!pid || t.proc.exitCode !== null) return;
      for (const c of [pid, ...descendants(pid)]) {
        try {
          process.kill(c, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    },
  };
  await t.start();
  return t;
}
