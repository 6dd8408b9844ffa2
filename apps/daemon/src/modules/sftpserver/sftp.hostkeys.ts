/**
 * The SFTP server's host keys: made once (Ed25519, and RSA for clients without Ed25519), kept in
 * the data directory with mode 0600 and used by every SFTP rule, so a client that trusted the
 * server once keeps trusting it across restarts and rule changes, as with OpenSSH's own
 * /etc/ssh/ssh_host_*_key.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Msg, SftpHostKey } from '@lucky/contracts';
import ssh2 from 'ssh2';
import { fingerprintOf } from '../../lib/sshfingerprint.js';

const { utils } = ssh2;

const KINDS = [
  { file: 'ssh_host_ed25519_key', type: 'ed25519' as const, opts: {} },
  { file: 'ssh_host_rsa_key', type: 'rsa' as const, opts: { bits: 3072 } },
];

/** A key file that is there but cannot be used: the rule's error, never a new key in its place. */
export class HostKeyError extends Error {
  constructor(
    readonly file: string,
    readonly detail: string,
  ) {
    super(`${file}: ${detail}`);
  }
}

export interface HostKeys {
  /** The private keys in OpenSSH format, for ssh2's server. */
  privateKeys: Buffer[];
  /** What a client shows of them. */
  shown: SftpHostKey[];
}

function generate(type: 'ed25519' | 'rsa', opts: { bits?: number }): Promise<string> {
  return new Promise((resolve, reject) =>
    utils.generateKeyPair(type, { ...opts, comment: 'lucky-sftp' }, (err, keys) => (err ? reject(err) : resolve(keys.private))),
  );
}

function shownOf(privateKey: Buffer): SftpHostKey {
  const parsed = utils.parseKey(privateKey);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || key instanceof Error) throw key ?? new Error('no key');
  const blob = key.getPublicSSH();
  return { type: key.type, fingerprint: fingerprintOf(blob), publicKey: `${key.type} ${blob.toString('base64')}` };
}

/**
 * Reads the host keys under `dir`, making those that are missing. A key file that exists but
 * cannot be read is an error (never silently replaced: clients would see a changed host key).
 */
export async function loadHostKeys(dir: string, note: (m: Msg) => void): Promise<HostKeys> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const privateKeys: Buffer[] = [];
  const shown: SftpHostKey[] = [];
  for (const kind of KINDS) {
    const file = join(dir, kind.file);
    let pem = await readFile(file).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? null : Promise.reject(new HostKeyError(file, err.message))));
    let made = false;
    if (!pem) {
      pem = Buffer.from(await generate(kind.type, kind.opts));
      // Written beside and renamed: a crash halfway leaves no half key to trip over at the next start.
      await writeFile(`${file}.new`, pem, { mode: 0o600 });
      await rename(`${file}.new`, file);
      made = true;
    }
    let one: SftpHostKey;
    try {
      one = shownOf(pem);
    } catch (err) {
      throw new HostKeyError(file, err instanceof Error ? err.message : String(err));
    }
    if (made) note({ key: 'sftpHostKeyMade', vars: { type: one.type, fingerprint: one.fingerprint } });
    privateKeys.push(pem);
    shown.push(one);
  }
  return { privateKeys, shown };
}

const loaded = new Map<string, Promise<HostKeys>>();

/** The host keys under `dir`, read (or made) once per daemon; a failure is tried again at the next call. */
export function hostKeysOf(dir: string, note: (m: Msg) => void): Promise<HostKeys> {
  let p = loaded.get(dir);
  if (!p) {
    p = loadHostKeys(dir, note);
    loaded.set(dir, p);
    p.catch(() => loaded.delete(dir));
  }
  return p;
}
