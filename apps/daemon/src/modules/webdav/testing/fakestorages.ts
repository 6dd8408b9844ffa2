/**
 * A small stand-in for the storages service, for the server's own tests: storages by key, users
 * with plain passwords and per-storage permissions, and a path check strict in the same ways the
 * real one is (so the traversal tests mean something). Never compiled into the build.
 */
import { realpathSync } from 'node:fs';
import { realpath, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import type { StoragePermission } from '@lucky/contracts';
import type { LoginAttempt, ResolvedPath, StorageGrant, StorageOp, StoragePrincipal, StoragesService } from '../../../core/services/storages.js';
import { MsgError } from '../../../lib/msgerror.js';

export interface FakeStorage {
  key: string;
  name: string;
  root: string;
  readOnly?: boolean;
  quota?: number | null;
  used?: number;
}
export interface FakeUser {
  account: string;
  password: string;
  permissions: Record<string, Partial<StoragePermission>>;
}

export class FakeStorages implements StoragesService {
  usage = new Map<string, string[]>();
  anonymousOn = false;
  anonymousStorages: string[] = [];

  constructor(
    public storages: FakeStorage[],
    public users: FakeUser[],
  ) {}

  async login(a: LoginAttempt): Promise<StoragePrincipal | null> {
    const u = this.users.find((x) => x.account === a.account && x.password === a.password);
    return u ? { kind: 'user', account: u.account } : null;
  }

  anonymous(): StoragePrincipal | null {
    return this.anonymousOn ? { kind: 'anonymous', account: '' } : null;
  }

  grants(who: StoragePrincipal): StorageGrant[] {
    return this.storages.map((s) => this.grant(who, s.key)).filter((g): g is StorageGrant => g !== null);
  }

  grant(who: StoragePrincipal, storage: string): StorageGrant | null {
    const s = this.storages.find((x) => x.key === storage);
    if (!s) return null;
    let perm: Partial<StoragePermission> | undefined;
    if (who.kind === 'admin') perm = { read: true, write: true, delete: true };
    else if (who.kind === 'anonymous') perm = this.anonymousStorages.includes(storage) ? { read: true } : undefined;
    else perm = this.users.find((u) => u.account === who.account)?.permissions[storage];
    if (!perm) return null;
    const ro = !!s.readOnly;
    return {
      storage: s.key,
      name: s.name,
      root: realpathSync(s.root),
      readOnly: ro,
      quota: s.quota ?? null,
      can: { read: perm.read ?? true, write: !ro && !!perm.write, delete: !ro && !!perm.delete },
    };
  }

  async resolve(grant: StorageGrant, path: string, op: StorageOp): Promise<ResolvedPath> {
    if (!grant.can[op]) throw new MsgError({ key: 'storageDenied', vars: { op } });
    if (path.includes('\0') || path.includes('\\') || /%(2e|2f|5c|00|25)/i.test(path)) throw new MsgError({ key: 'storagePathInvalid' });
    const segs = path.split('/').filter((s) => s !== '');
    if (segs.some((s) => s === '..' || s === '.')) throw new MsgError({ key: 'storagePathEscapes' });
    const norm = `/${segs.join('/')}`;
    const root = grant.root;
    const inside = (p: string) => p === root || p.startsWith(`${root}/`);
    const full = join(root, ...segs);
    try {
      const real = await realpath(full);
      if (!inside(real)) throw new MsgError({ key: 'storagePathEscapes' });
      return { grant, path: norm, real, exists: true };
    } catch (err) {
      if (err instanceof MsgError) throw err;
      // Not there yet: its parent must resolve inside the root.
      const parent = join(root, ...segs.slice(0, -1));
      let rp: string;
      try {
        rp = await realpath(parent);
      } catch {
        return { grant, path: norm, real: full, exists: false };
      }
      if (!inside(rp)) throw new MsgError({ key: 'storagePathEscapes' });
      return { grant, path: norm, real: join(rp, segs[segs.length - 1] ?? ''), exists: false };
    }
  }

  async room(grant: StorageGrant): Promise<number> {
    const s = this.storages.find((x) => x.key === grant.storage)!;
    if (s.quota == null) return Infinity;
    const fs = await statfs(grant.root);
    return Math.max(0, Math.min(s.quota - (s.used ?? 0), fs.bavail * fs.bsize));
  }

  setUsage(service: string, storages: string[]): void {
    this.usage.set(service, storages);
  }
}
