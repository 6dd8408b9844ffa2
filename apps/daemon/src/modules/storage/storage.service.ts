/**
 * The `storages` service: who may log in, what each principal sees, and the one path and
 * permission check every storage service calls. Everything is read from the stored rules and
 * settings at each call, so a user switched off or a storage made read-only applies to the next
 * request, not the next restart.
 */
import { realpathSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import type { Msg, Storage, StoragePermission } from '@lucky/contracts';
import { hashPassword, verifyPassword } from '../../core/password.js';
import type { StoredRule } from '../../core/rulestore.js';
import type { LoginAttempt, ResolvedPath, StorageGrant, StorageOp, StoragePrincipal, StoragesService } from '../../core/services/storages.js';
import { MsgError } from '../../lib/msgerror.js';
import { cleanClientPath, underRoot } from './storage.paths.js';
import { stateOf, type StorageContext } from './storage.state.js';

const NOTHING: StoragePermission = { read: false, write: false, delete: false };
const OP_NAME: Record<StorageOp, Msg> = {
  read: { key: 'storageOpRead' },
  write: { key: 'storageOpWrite' },
  delete: { key: 'storageOpDelete' },
};

/** The path checks of resolve once the storage's root is known. */
async function checked(g: StorageGrant, rootReal: string, path: string, op: StorageOp): Promise<ResolvedPath> {
  if (op !== 'read' && g.readOnly) throw new MsgError({ key: 'storageReadOnly', vars: { name: g.name } });
  if (!g.can[op]) throw new MsgError({ key: 'storageDenied', vars: { op: OP_NAME[op] } });
  const clean = cleanClientPath(path);
  // Neither the root nor anything above it is the client's to delete.
  if (op === 'delete' && clean === '/') throw new MsgError({ key: 'storageDenied', vars: { op: OP_NAME[op] } });
  const { real, exists } = await underRoot(rootReal, clean);
  return { grant: { ...g, root: rootReal }, path: clean, real, exists };
}

/** A hash no password matches, checked for unknown accounts so timing does not tell which accounts exist. */
let decoy: Promise<string> | undefined;

export function storagesService(mod: StorageContext): StoragesService {
  const state = stateOf(mod);
  const settings = () => mod.rules.settings();

  function grantOf(rule: StoredRule<Storage>, can: StoragePermission): StorageGrant | null {
    if (!rule.data.enable) return null;
    let root: string;
    try {
      root = realpathSync(rule.data.path);
    } catch {
      // The directory is gone (a disk unmounted): nothing to offer until it is back.
      return null;
    }
    const ro = rule.data.readOnly;
    return {
      storage: rule.key,
      name: rule.data.name,
      root,
      readOnly: ro,
      quota: rule.data.quota,
      can: { read: can.read, write: can.write && !ro, delete: can.delete && !ro },
      version: state.version,
    };
  }

  /** What this principal may do in this storage, before the storage's own switches. */
  function permissionOf(who: StoragePrincipal, storage: string): StoragePermission | null {
    if (who.kind === 'admin') return { read: true, write: true, delete: true };
    const s = settings();
    if (who.kind === 'anonymous') {
      // Read-only at most, whatever was stored.
      return s.anonymous.enable && s.anonymous.storages.includes(storage) ? { ...NOTHING, read: true } : null;
    }
    const user = s.users.find((u) => u.account === who.account);
    if (!user || !user.enable) return null;
    return user.permissions[storage] ?? null;
  }

  function grant(who: StoragePrincipal, storage: string): StorageGrant | null {
    const rule = mod.rules.get(storage);
    const can = rule ? permissionOf(who, storage) : null;
    return rule && can ? grantOf(rule, can) : null;
  }

  return {
    async login({ account, password, ip, service }: LoginAttempt): Promise<StoragePrincipal | null> {
      const guard = mod.loginGuard;
      const wait = guard.lockedFor(ip);
      if (wait > 0) {
        mod.say.warn({ key: 'storageLoginLocked', vars: { service, client: ip, seconds: wait } });
        return null;
      }
      const user = settings().users.find((u) => u.account === account);
      // The hash is checked whatever the account, so a wrong account costs the same time as a wrong password.
      const hash = user?.password ?? (await (decoy ??= hashPassword(Math.random().toString(36))));
      const passwordOk = password !== '' && (await verifyPassword(password, hash));
      if (user && user.enable && passwordOk) {
        guard.succeed(ip);
        return { kind: 'user', account: user.account };
      }
      const lock = guard.fail(ip);
      mod.say.warn(
        lock > 0
          ? { key: 'storageLoginLocked', vars: { service, client: ip, seconds: lock } }
          : { key: 'storageLoginFailed', vars: { service, client: ip, account: account.slice(0, 64) } },
      );
      return null;
    },

    anonymous(): StoragePrincipal | null {
      return settings().anonymous.enable ? { kind: 'anonymous', account: '' } : null;
    },

    grants(who: StoragePrincipal): StorageGrant[] {
      const out: StorageGrant[] = [];
      for (const rule of mod.rules.list()) {
        const g = grant(who, rule.key);
        if (g) out.push(g);
      }
      return out;
    },

    grant,

    async resolve(g: StorageGrant, path: string, op: StorageOp): Promise<ResolvedPath> {
      // No storage changed since the grant was taken (a service takes one per request): it is the
      // storage as it is now, without reading the rule and the root a second time. Symlinks inside
      // the storage are resolved at every call either way.
      if (g.version === state.version) return checked(g, g.root, path, op);
      // The storage as it is now: switched off, made read-only or moved since the grant was taken.
      const rule = mod.rules.get(g.storage);
      if (!rule) throw new MsgError({ key: 'storageUnknown', vars: { storage: g.storage } });
      if (!rule.data.enable) throw new MsgError({ key: 'storageDisabled', vars: { name: rule.data.name } });
      if (op !== 'read' && rule.data.readOnly) throw new MsgError({ key: 'storageReadOnly', vars: { name: rule.data.name } });
      let rootReal: string;
      try {
        rootReal = await realpath(rule.data.path);
      } catch {
        throw new MsgError({ key: 'storagePathMissing', vars: { path: rule.data.path } });
      }
      return checked(g, rootReal, path, op);
    },

    async room(g: StorageGrant): Promise<number> {
      if (g.quota === null) return Infinity;
      // Keyed like the view's figure (the stored path), so both share one walk.
      const rule = mod.rules.get(g.storage);
      const used = (await state.usage.get(rule?.data.path ?? g.root)).used;
      return Math.max(0, g.quota - used);
    },

    setUsage(service: string, storages: string[]): void {
      state.setUsage(service, storages);
    },
  };
}
