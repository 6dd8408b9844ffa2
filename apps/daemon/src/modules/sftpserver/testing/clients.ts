/**
 * A real daemon with the SFTP server, and the real OpenSSH clients (sftp, scp, ssh) run against it
 * as child processes with a time limit: each with its own known_hosts holding the host keys the
 * API shows (so a client that connects has checked them), a key of its own or a password given
 * through SSH_ASKPASS (OpenSSH reads passwords from nothing else).
 */
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SftpHostKey, SftpRuleInput, SftpRuleView } from '@lucky/contracts';
import { freePort, type TestDaemon } from '../../../test/harness.js';
import { EN } from '../../../test/storages.js';
import { runTool as run, type Run } from '../../../test/tool.js';

export async function ruleView(d: TestDaemon, key: string): Promise<SftpRuleView> {
  return (await d.call<{ rule: SftpRuleView }>('GET', `/api/sftpserver/rules/${key}`, undefined, EN)).rule;
}

export async function hostKeys(d: TestDaemon): Promise<SftpHostKey[]> {
  return (await d.call<{ keys: SftpHostKey[] }>('GET', '/api/sftpserver/hostkeys', undefined, EN)).keys;
}

/** Saves an SFTP rule and waits until it serves; returns its key and port. */
export async function makeSftp(d: TestDaemon, rule: Partial<SftpRuleInput> & Pick<SftpRuleInput, 'mounts'>): Promise<{ key: string; port: number }> {
  const port = rule.port ?? (await freePort());
  const r = await d.call<{ key: string }>('POST', '/api/sftpserver/rules', { name: `sftp${port}`, address: '127.0.0.1', ...rule, port }, EN);
  if (r.ret !== 0) throw new Error(`sftp rule not saved: ${JSON.stringify(r)}`);
  let v = await ruleView(d, r.key);
  for (let i = 0; i < 400 && v.status?.state !== 'running'; i++) {
    await new Promise((res) => setTimeout(res, 25));
    v = await ruleView(d, r.key);
  }
  if (v.status?.state !== 'running') throw new Error(`sftp rule not running: ${JSON.stringify(v.status)}`);
  return { key: r.key, port };
}

/** A key pair made by ssh-keygen: the private key's file and the public key's line. */
export async function keyPair(dir: string, name: string, type = 'ed25519'): Promise<{ file: string; pub: string }> {
  const file = join(dir, name);
  const r = await run('ssh-keygen', ['-q', '-t', type, '-N', '', '-C', name, '-f', file]);
  if (r.code !== 0) throw new Error(`ssh-keygen: ${r.err}`);
  return { file, pub: readFileSync(`${file}.pub`, 'utf8').trim() };
}

export type Login = { user: string; key: string } | { user: string; password: string };

/** The OpenSSH clients' options for one login against 127.0.0.1, with the host keys in a known_hosts of their own. */
export class OpenSsh {
  private readonly dir = mkdtempSync(join(tmpdir(), 'lucky-sftp-client-'));
  private readonly knownHosts = join(this.dir, 'known_hosts');

  constructor(
    readonly port: number,
    keys: SftpHostKey[],
  ) {
    writeFileSync(this.knownHosts, keys.map((k) => `[127.0.0.1]:${port} ${k.publicKey}\n`).join(''));
  }

  private options(login: Login): { args: string[]; env: Record<string, string> } {
    const args = ['-F', '/dev/null', '-o', `UserKnownHostsFile=${this.knownHosts}`, '-o', 'StrictHostKeyChecking=yes', '-o', 'ConnectTimeout=10', '-o', `User=${login.user}`];
    if ('key' in login) {
      return { args: [...args, '-o', 'BatchMode=yes', '-o', 'IdentitiesOnly=yes', '-o', 'PreferredAuthentications=publickey', '-i', login.key], env: {} };
    }
    // SSH_ASKPASS is the one way to give OpenSSH a password without a terminal.
    const askpass = join(this.dir, `askpass-${login.user}`);
    writeFileSync(askpass, `#!/bin/sh\nprintf '%s\\n' '${login.password.replace(/'/g, `'\\''`)}'\n`);
    chmodSync(askpass, 0o700);
    return {
      // Before sftp's own -b (which turns BatchMode on): the first value of an option is the one ssh keeps.
      args: [...args, '-o', 'BatchMode=no', '-o', 'PreferredAuthentications=password', '-o', 'PubkeyAuthentication=no', '-o', 'NumberOfPasswordPrompts=1'],
      env: { SSH_ASKPASS: askpass, SSH_ASKPASS_REQUIRE: 'force', DISPLAY: ':0' },
    };
  }

  /** `sftp -b` with these commands; stops at the first one that fails (as -b does). */
  sftp(login: Login, commands: string[], cwd?: string): Promise<Run> {
    const batch = join(this.dir, `batch-${Math.random().toString(36).slice(2)}`);
    writeFileSync(batch, commands.join('\n') + '\n');
    const o = this.options(login);
    return run('sftp', [...o.args, '-P', String(this.port), '-b', batch, '127.0.0.1'], { env: o.env, cwd });
  }

  /** scp in its SFTP mode (-s): `from` and `to` name the remote side as `:path`. */
  scp(login: Login, from: string, to: string): Promise<Run> {
    const o = this.options(login);
    const side = (p: string) => (p.startsWith(':') ? `127.0.0.1${p}` : p);
    return run('scp', [...o.args, '-s', '-q', '-P', String(this.port), side(from), side(to)], { env: o.env });
  }

  /** ssh itself (a command, a forward): what the server must refuse. */
  ssh(login: Login, options: string[], command: string[] = []): Promise<Run> {
    const o = this.options(login);
    return run('ssh', [...o.args, ...options, '-p', String(this.port), '127.0.0.1', ...command], { env: o.env, timeout: 20_000 });
  }
}

export { sha, tree } from '../../../test/tree.js';
