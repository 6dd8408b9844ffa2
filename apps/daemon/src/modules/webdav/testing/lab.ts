/**
 * One WebDAV server on a real socket over a fake storages service, for tests that need the server
 * without a daemon around it (the daemon's own tests use the real storage module).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ZWebdavRule, type WebdavRuleInput } from '@lucky/contracts';
import { LockTable } from '../webdav.locks.js';
import { DeadProps } from '../webdav.props.js';
import { DavServer, type AccessEntry } from '../webdav.server.js';
import { FakeStorages } from './fakestorages.js';

export interface Lab {
  port: number;
  url: string;
  dir: string;
  storages: FakeStorages;
  access: AccessEntry[];
  dav: DavServer;
  close(): Promise<void>;
}

export async function startLab(storages: FakeStorages, rule: Partial<WebdavRuleInput> = {}): Promise<Lab> {
  const dir = mkdtempSync(join(tmpdir(), 'lucky-dav-lab-'));
  const access: AccessEntry[] = [];
  const r = ZWebdavRule.parse({ name: 'lab', port: 1, mounts: [{ name: '', storage: storages.storages[0]!.key }], ...rule });
  const dav = new DavServer(r, { storages, props: new DeadProps(join(dir, 'props')), locks: new LockTable(), access: (e) => access.push(e), note: () => undefined });
  const server: Server = createServer(dav.handle);
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}${r.prefix === '/' ? '/' : `${r.prefix}/`}`,
    dir,
    storages,
    access,
    dav,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((res) => server.close(() => res()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
