/**
 * A remote storage of each kind for the services' tests: its real peer started on loopback (rclone
 * serve webdav, s3rver, OpenSSH's sshd) and the storage saved and running on a test daemon. `dir` is where the
 * peer keeps the files, for the test to look at (S3: the bucket's directory, objects as files).
 */
import { join } from 'node:path';
import type { StorageInput, StorageView } from '@lucky/contracts';
import { freePort, type TestDaemon } from './harness.js';
import { rcloneWebdav, RCLONE_PASS, RCLONE_USER } from './rclone.js';
import { S3_BUCKET, S3_KEY_ID, S3_SECRET, startS3Peer } from './s3peer.js';
import { startSshd } from './sshd.js';
import { EN, tempDir } from './storages.js';

export type RemoteKind = 'webdav' | 's3' | 'sftp';

export interface TestRemote {
  kind: RemoteKind;
  /** The storage's key on the daemon. */
  key: string;
  /** Where the peer keeps the storage's files. */
  dir: string;
  /** Ends the peer (as a remote that goes away). */
  kill(): void;
}

async function peer(kind: RemoteKind): Promise<{ body: StorageInput; dir: string; kill(): void }> {
  if (kind === 'sftp') {
    const sshd = await startSshd();
    const { mkdirSync } = await import('node:fs');
    const dir = join(sshd.root, 'base');
    mkdirSync(dir);
    return {
      dir,
      kill: () => sshd.kill(),
      body: { name: 'remote-sftp', kind, sftp: { host: '127.0.0.1', port: sshd.port, username: sshd.user, privateKey: sshd.clientKey, hostKey: sshd.fingerprint, root: dir } },
    };
  }
  if (kind === 'webdav') {
    const dir = tempDir('remote-webdav');
    const port = await freePort();
    const child = await rcloneWebdav(dir, port);
    return { dir, kill: () => child.kill('SIGKILL'), body: { name: 'remote-webdav', kind, webdav: { url: `http://127.0.0.1:${port}/`, username: RCLONE_USER, password: RCLONE_PASS } } };
  }
  const root = tempDir('remote-s3');
  const [port, vhost] = [await freePort(), await freePort()];
  const child = await startS3Peer(root, port, vhost);
  return {
    dir: join(root, S3_BUCKET),
    kill: () => child.kill('SIGKILL'),
    body: { name: 'remote-s3', kind, s3: { endpoint: `http://127.0.0.1:${port}`, bucket: S3_BUCKET, accessKeyId: S3_KEY_ID, secretAccessKey: S3_SECRET, pathStyle: true } },
  };
}

/** The peer started, and a storage on it saved and running (`cacheSeconds` as given, 10 by default). */
export async function makeRemote(d: TestDaemon, kind: RemoteKind, o: Partial<StorageInput> = {}): Promise<TestRemote> {
  const { body, dir, kill } = await peer(kind);
  const r = await d.call<{ key: string }>('POST', '/api/storage/rules', { ...body, ...o }, EN);
  if (r.ret !== 0) throw new Error(`remote storage not saved: ${JSON.stringify(r)}`);
  let state = '';
  for (let i = 0; i < 400 && state !== 'running'; i++) {
    if (i) await new Promise((res) => setTimeout(res, 25));
    state = (await d.call<{ rule: StorageView }>('GET', `/api/storage/rules/${r.key}`, undefined, EN)).rule.status?.state ?? '';
  }
  if (state !== 'running') throw new Error(`remote storage ${kind} not running`);
  return { kind, key: r.key, dir, kill };
}
