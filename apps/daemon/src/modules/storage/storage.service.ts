/**
 * The `storages` service: who may log in, what each principal sees, and the one path and
 * permission check every storage service calls. Everything is read from the stored rules and
 * settings at each call, so a user switched off or a storage made read-only applies to the next
 * request, not the next restart.
 */
import { realpathSync, type Stats } from 'node:fs';
import { createHmac, randomBytes } from 'node:crypto';
import { readFile, realpath, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { parseAuthorizedKeys, type Msg, type Storage, type StoragePermission } from '@lucky/contracts';
import { checkPassword } from '../../core/password.js';
import type { StoredRule } from '../../core/rulestore.js';
import { nativeAddon } from '../../core/native.js';
import { STORAGE_TEMP_PREFIX, type LoginAttempt, type OfferedKey, type ReadResult, type RemoteFs, type ServesRemote, type ResolvedPath, type StorageGrant, type StorageOp, type StoragePrincipal, type StoragesService, type WriteResult } from '../../core/services/storages.js';
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
  // A remote storage has no disk of ours to escape from: the clean path is all it is given.
  if (g.remote) return { grant: g, path: clean, real: clean, exists: (await g.remote.stat(clean)) !== null };
  const { real, exists } = await underRoot(rootReal, clean);
  return { grant: { ...g, root: rootReal }, path: clean, real, exists };
}

/**
 * How long the real path of a storage's root is trusted: taking it is several lstat calls on the
 * event loop, once per request before. Paths inside the root are still resolved at every call; a
 * root moved or unmounted is seen within this time (and any access below a gone root fails anyway).
 */
const ROOT_TTL_MS = 1000;

/** errno values of readBeneath that simply mean "not there". */
const ENOENT = 2;
const ENOTDIR = 20;
const EISDIR = 21;
const tempName = () => `${STORAGE_TEMP_PREFIX}${randomBytes(6).toString('hex')}`;
const S_IFMT = 0o170000;
const kindOf = (mode: number): ReadResult['kind'] => ((mode & S_IFMT) === 0o100000 ? 'file' : (mode & S_IFMT) === 0o040000 ? 'dir' : 'other');

/**
 * How long a verified login is taken on trust after its last use. A WebDAV client sends its password
 * with every request and an FTP client logs in for every transfer; scrypt each time cost tens of
 * milliseconds of CPU and ~30 MB of memory per login. Only successes are remembered, under a keyed
 * hash of the account and password (never the password itself), and all of them are forgotten as
 * soon as the storage users change: a password changed or a user switched off applies at once.
 * Checking the same password against the same users again can only give the same answer, so a use
 * extends the trust: a busy client whose trust ran out mid-burst paid one scrypt per request in
 * flight (16 at once, a second of CPU, every 30 s).
 */
const LOGIN_TRUST_MS = 30_000;

/** A remote file's stat, and its content when it is at most `max` bytes. */
async function readRemote(remote: RemoteFs, rp: ResolvedPath, max: number): Promise<ReadResult | null> {
  const st = rp.exists ? await remote.stat(rp.path) : null;
  if (!st) return null;
  let data: Buffer | null = null;
  if (st.kind === 'file' && st.size <= max) {
    const chunks: Buffer[] = [];
    for await (const c of await remote.read(rp.path)) chunks.push(c as Buffer);
    data = Buffer.concat(chunks);
    if (data.length !== st.size) data = null;
  }
  return { path: rp.path, kind: st.kind, size: st.size, mtimeMs: st.mtimeMs, ino: 0, data };
}

async function writeRemote(remote: RemoteFs, clean: string, data: Buffer): Promise<WriteResult> {
  const old = await remote.stat(clean);
  if (old?.kind === 'dir') throw new MsgError({ key: 'storageIsFolder', vars: { path: clean } });
  const parent = dirname(clean);
  if (parent !== '/' && (await remote.stat(parent))?.kind !== 'dir') throw new MsgError({ key: 'storageNoFolder', vars: { path: parent } });
  await remote.write(clean, Readable.from([data]), data.length);
  const now = await remote.stat(clean);
  return { path: clean, created: !old, size: now?.size ?? data.length, mtimeMs: now?.mtimeMs ?? Date.now(), ino: 0 };
}

export function storagesService(mod: StorageContext): StoragesService {
  const state = stateOf(mod);
  const settings = () => mod.rules.settings();
  const roots = new Map<string, { real: string; until: number }>();
  const trusted = new Map<string, { who: StoragePrincipal; until: number }>();
  /** Checks under way, by the same key: requests sent at once with the same login share one scrypt. */
  const checking = new Map<string, Promise<StoragePrincipal | null>>();
  const trustKey = randomBytes(32);
  /** The users the trusted logins were verified against (the settings' parse, the same object while unchanged). */
  let trustedFor: unknown = null;

  /** The storage's directory as a real path, or null when it is gone. */
  function rootOf(dir: string): string | null {
    const now = Date.now();
    const hit = roots.get(dir);
    if (hit && hit.until > now) return hit.real;
    let real: string;
    try {
      real = realpathSync(dir);
    } catch {
      roots.delete(dir);
      return null;
    }
    if (roots.size > 1000) roots.clear();
    roots.set(dir, { real, until: now + ROOT_TTL_MS });
    return real;
  }

  function grantOf(rule: StoredRule<Storage>, can: StoragePermission): StorageGrant | null {
    if (!rule.data.enable) return null;
    const ro = rule.data.readOnly;
    const allowed = { read: can.read, write: can.write && !ro, delete: can.delete && !ro };
    if (rule.data.kind !== 'local') {
      // Not running (unreachable at start, or starting): nothing to offer until it answers.
      const client = state.remotes.get(rule.key);
      if (!client) return null;
      return { storage: rule.key, name: rule.data.name, root: '', readOnly: ro, quota: null, can: allowed, version: state.version, remote: client.fs };
    }
    const root = rootOf(rule.data.path);
    // The directory is gone (a disk unmounted): nothing to offer until it is back.
    if (root === null) return null;
    return { storage: rule.key, name: rule.data.name, root, readOnly: ro, quota: rule.data.quota, can: allowed, version: state.version, remote: null };
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

  function grant(who: StoragePrincipal, storage: string, o: ServesRemote = {}): StorageGrant | null {
    const rule = mod.rules.get(storage);
    if (!rule || (rule.data.kind !== 'local' && !o.remote)) return null;
    const can = permissionOf(who, storage);
    return can ? grantOf(rule, can) : null;
  }

  function down(storage: string): boolean {
    const rule = mod.rules.get(storage);
    if (!rule?.data.enable) return false;
    return rule.data.kind === 'local' ? rootOf(rule.data.path) === null : !state.remotes.has(storage);
  }

  /**
   * The grant's root as it is now. No storage changed since the grant was taken (a service takes
   * one per request): it is the grant's, without reading the rule and the root a second time.
   * Otherwise the storage may have been switched off, made read-only or moved since.
   */
  async function rootNow(g: StorageGrant, op: StorageOp): Promise<string> {
    if (g.version === state.version) return g.root;
    const rule = mod.rules.get(g.storage);
    if (!rule) throw new MsgError({ key: 'storageUnknown', vars: { storage: g.storage } });
    if (!rule.data.enable) throw new MsgError({ key: 'storageDisabled', vars: { name: rule.data.name } });
    if (op !== 'read' && rule.data.readOnly) throw new MsgError({ key: 'storageReadOnly', vars: { name: rule.data.name } });
    if (g.remote) {
      if (!state.remotes.has(g.storage)) throw new MsgError({ key: 'storageDisabled', vars: { name: rule.data.name } });
      return '';
    }
    try {
      return await realpath(rule.data.path);
    } catch {
      throw new MsgError({ key: 'storagePathMissing', vars: { path: rule.data.path } });
    }
  }

  /** scrypt against the users of now; a success is trusted from here on. */
  async function verify(users: ReturnType<typeof settings>['users'], memo: string, { account, password, ip, service }: LoginAttempt): Promise<StoragePrincipal | null> {
    const guard = mod.loginGuard;
    const user = users.find((u) => u.account === account);
    const passwordOk = await checkPassword(password, user?.password);
    if (user && user.enable && passwordOk) {
      guard.succeed(ip);
      const who: StoragePrincipal = { kind: 'user', account: user.account };
      if (trusted.size > 1000) trusted.clear();
      // Not when the users changed while scrypt ran: the answer was for the ones before.
      if (users === trustedFor) trusted.set(memo, { who, until: Date.now() + LOGIN_TRUST_MS });
      return who;
    }
    const lock = guard.fail(ip);
    mod.say.warn(
      lock > 0
        ? { key: 'storageLoginLocked', vars: { service, client: ip, seconds: lock } }
        : { key: 'storageLoginFailed', vars: { service, client: ip, account: account.slice(0, 64) } },
    );
    return null;
  }

  return {
    async login({ account, password, ip, service }: LoginAttempt): Promise<StoragePrincipal | null> {
      const guard = mod.loginGuard;
      const wait = guard.lockedFor(ip);
      if (wait > 0) {
        mod.say.warn({ key: 'storageLoginLocked', vars: { service, client: ip, seconds: wait } });
        return null;
      }
      const users = settings().users;
      if (users !== trustedFor) {
        trusted.clear();
        checking.clear();
        trustedFor = users;
      }
      const memo = createHmac('sha256', trustKey).update(account).update('\0').update(password).digest('base64');
      const hit = trusted.get(memo);
      const now = Date.now();
      if (hit && hit.until > now) {
        hit.until = now + LOGIN_TRUST_MS;
        return hit.who;
      }
      const pending = checking.get(memo);
      if (pending) return pending;
      // One address's guesses hash a few at a time (core/loginguard.ts CHECKS_IN_FLIGHT); more are refused unchecked.
      const release = guard.admit(ip);
      if (!release) return null;
      const check: Promise<StoragePrincipal | null> = verify(users, memo, { account, password, ip, service }).finally(() => {
        release();
        if (checking.get(memo) === check) checking.delete(memo);
      });
      checking.set(memo, check);
      return check;
    },

    keyOwner({ account, blob, ip, service }: OfferedKey): StoragePrincipal | null {
      if (mod.loginGuard.lockedFor(ip) > 0) {
        mod.say.warn({ key: 'storageLoginLocked', vars: { service, client: ip, seconds: mod.loginGuard.lockedFor(ip) } });
        return null;
      }
      const user = settings().users.find((u) => u.account === account);
      if (!user || !user.enable) return null;
      const b64 = blob.toString('base64');
      return parseAuthorizedKeys(user.publicKeys).some((l) => 'key' in l && l.key.blob === b64) ? { kind: 'user', account: user.account } : null;
    },

    describe(storage: string) {
      const rule = mod.rules.get(storage);
      return rule ? { name: rule.data.name, kind: rule.data.kind } : null;
    },

    anonymous(): StoragePrincipal | null {
      return settings().anonymous.enable ? { kind: 'anonymous', account: '' } : null;
    },

    grants(who: StoragePrincipal, o: ServesRemote = {}): StorageGrant[] {
      const out: StorageGrant[] = [];
      for (const rule of mod.rules.list()) {
        const g = grant(who, rule.key, o);
        if (g) out.push(g);
      }
      return out;
    },

    grant,
    down,

    async resolve(g: StorageGrant, path: string, op: StorageOp): Promise<ResolvedPath> {
      return checked(g, await rootNow(g, op), path, op);
    },

    async read(g: StorageGrant, path: string, max: number): Promise<ReadResult | null> {
      const rootReal = await rootNow(g, 'read');
      if (g.remote) return readRemote(g.remote, await checked(g, rootReal, path, 'read'), max);
      const addon = nativeAddon();
      if (addon) {
        // The grant's and the path's checks first, as resolve makes them; the kernel then keeps
        // the open below the root.
        if (!g.can.read) throw new MsgError({ key: 'storageDenied', vars: { op: OP_NAME.read } });
        const clean = cleanClientPath(path);
        const [errno, size, mtimeMs, ino, mode, data] = await addon.readBeneath(rootReal, clean.slice(1), max);
        if (errno === 0) return { path: clean, kind: kindOf(mode), size, mtimeMs, ino, data };
        if (errno === ENOENT || errno === ENOTDIR) return null;
        // Anything else (a symlink the kernel would not follow below the root, no openat2 on this
        // kernel, a permission): the realpath check below decides and says why.
      }
      const rp = await checked(g, rootReal, path, 'read');
      if (!rp.exists) return null;
      let s: Stats;
      try {
        s = await stat(rp.real);
      } catch {
        return null;
      }
      const kind = s.isFile() ? 'file' : s.isDirectory() ? 'dir' : 'other';
      // Unreadable now (a permission): no content from here; the caller's stream says so.
      const data = kind === 'file' && s.size <= max ? await readFile(rp.real).catch(() => null) : null;
      return { path: rp.path, kind, size: s.size, mtimeMs: s.mtimeMs, ino: s.ino, data: data && data.length === s.size ? data : null };
    },

    async write(g: StorageGrant, path: string, data: Buffer): Promise<WriteResult> {
      const rootReal = await rootNow(g, 'write');
      if (g.readOnly) throw new MsgError({ key: 'storageReadOnly', vars: { name: g.name } });
      if (!g.can.write) throw new MsgError({ key: 'storageDenied', vars: { op: OP_NAME.write } });
      const clean = cleanClientPath(path);
      if (clean === '/') throw new MsgError({ key: 'storageIsFolder', vars: { path: clean } });
      if (g.remote) return writeRemote(g.remote, clean, data);
      const addon = nativeAddon();
      // With a quota the old file's size counts (an overwrite frees it): the checked way below.
      if (addon && g.quota === null) {
        const [errno, existed, size, mtimeMs, ino] = await addon.writeBeneath(rootReal, dirname(clean).slice(1), basename(clean), tempName(), data);
        if (errno === 0) return { path: clean, created: !existed, size, mtimeMs, ino };
        if (errno === ENOENT || errno === ENOTDIR) throw new MsgError({ key: 'storageNoFolder', vars: { path: dirname(clean) } });
        if (errno === EISDIR) throw new MsgError({ key: 'storageIsFolder', vars: { path: clean } });
        // A link on the way, no openat2, a full disk: the checked way decides and says why.
      }
      const rp = await checked(g, rootReal, path, 'write');
      const old = rp.exists ? await stat(rp.real) : null;
      if (old?.isDirectory()) throw new MsgError({ key: 'storageIsFolder', vars: { path: rp.path } });
      const dir = dirname(rp.real);
      if (!(await stat(dir).catch(() => null))?.isDirectory()) throw new MsgError({ key: 'storageNoFolder', vars: { path: dirname(rp.path) } });
      if (g.quota !== null && data.length > (await this.room(g)) + (old?.size ?? 0)) {
        throw new MsgError({ key: 'storageQuotaFull', vars: { name: g.name, quota: `${g.quota} B` } });
      }
      const tmp = join(dir, tempName());
      try {
        await writeFile(tmp, data, { flag: 'wx' });
        await rename(tmp, rp.real);
      } catch (err) {
        await unlink(tmp).catch(() => undefined);
        throw err;
      }
      const now = await stat(rp.real);
      return { path: rp.path, created: !old, size: now.size, mtimeMs: now.mtimeMs, ino: now.ino };
    },

    async room(g: StorageGrant): Promise<number> {
      // A remote storage's room is its server's to decide (its own quota answers the upload).
      if (g.quota === null || g.remote) return Infinity;
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
