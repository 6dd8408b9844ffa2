/**
 * The files of a remote storage, by its kind: one client per storage (its connections reused by
 * every request), behind the short listing cache. Made when a storage starts or changes, closed
 * when it stops.
 */
import type { Storage } from '@lucky/contracts';
import type { RemoteFs } from '../../../core/services/storages.js';
import { MsgError } from '../../../lib/msgerror.js';
import { CachedRemote } from './cache.js';

export interface RemoteClient {
  fs: RemoteFs;
  close(): Promise<void>;
}

/** What the connection saw that the form may want to keep (SFTP: the server's host key fingerprint). */
export interface RemoteSeen {
  hostKey: string;
}

async function clientOf(s: Storage, seen: RemoteSeen): Promise<RemoteFs & { close(): Promise<void> }> {
  switch (s.kind) {
    case 'webdav':
      return new (await import('./webdav.js')).RemoteWebdavFs(s.name, s.webdav);
    case 'sftp':
      return new (await import('./sftp.js')).RemoteSftpFs(s.name, s.sftp, seen);
    case 's3':
      return new (await import('./s3.js')).RemoteS3Fs(s.name, s.s3);
    default:
      throw new MsgError({ key: 'storageRemoteNotServed', vars: { service: s.kind, name: s.name } });
  }
}

export async function openRemote(s: Storage, seen: RemoteSeen = { hostKey: '' }): Promise<RemoteClient> {
  const inner = await clientOf(s, seen);
  return { fs: new CachedRemote(inner, s.cacheSeconds * 1000), close: () => inner.close() };
}
