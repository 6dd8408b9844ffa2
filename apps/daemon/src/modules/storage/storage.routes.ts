/** The storage module's own route: the directory check the form runs before saving. */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { formatIssues, message, renderMsg, restoreSecrets, Ret, ZStorage, ZStorageFields, type Storage } from '@lucky/contracts';
import { AppError } from '../../core/envelope.js';
import type { OwnHandlers } from '../../core/module.js';
import type { storageContract } from '@lucky/contracts';
import { msgOf } from '../../lib/msgerror.js';
import { openRemote } from './remote/index.js';
import type { StorageContext } from './storage.state.js';
import { fsSpace } from './storage.usage.js';

export function storageRoutes(mod: StorageContext): OwnHandlers<typeof storageContract> {
  return {
    testRemote: async ({ body, req }) => {
      // The form's masked secrets are the stored storage's (only while what they are bound to is unchanged).
      const stored = body.key ? mod.rules.get(body.key)?.data : undefined;
      const input = restoreSecrets(ZStorage, body.storage, stored);
      let parsed = ZStorage.safeParse(input);
      // An SFTP server's host key is what testing the connection finds out: a form without it yet is
      // tested all the same (the connection is refused at the handshake, the fingerprint answered).
      if (!parsed.success && parsed.error.issues.every((i) => i.path.join('.') === 'sftp.hostKey')) parsed = ZStorageFields.safeParse(input);
      if (!parsed.success) throw new AppError(Ret.badRequest, null, {}, formatIssues(ZStorage, input, req.lang));
      const s: Storage = { ...parsed.data, cacheSeconds: 0 };
      if (s.kind === 'local') throw new AppError(Ret.badRequest, 'storageRemoteFailed', { detail: 'local' });
      const seen = { hostKey: '' };
      try {
        const client = await openRemote(s, seen);
        try {
          const entries = (await client.fs.list('/')).length;
          return { ok: true, msg: message(req.lang, 'storageRemoteOk', { entries }), entries, hostKey: seen.hostKey };
        } finally {
          await client.close().catch(() => undefined);
        }
      } catch (err) {
        // "cannot connect: <why>", not "cannot connect: remote storage X cannot be reached: <why>".
        const m = msgOf(err);
        const why = m.key === 'storageRemoteDown' && m.vars?.detail && typeof m.vars.detail === 'object' ? (m.vars.detail as typeof m) : m;
        return { ok: false, msg: message(req.lang, 'storageRemoteFailed', { detail: renderMsg(req.lang, why) }), entries: 0, hostKey: seen.hostKey };
      }
    },
    checkPath: async ({ body, req }) => {
      const path = body.path.trim();
      const none = { exists: false, directory: false, writable: false, fsTotal: 0, fsFree: 0 };
      if (!path.startsWith('/') || path.includes('\0')) return { ...none, msg: message(req.lang, 'storagePathAbsolute') };
      const s = await stat(path).catch(() => null);
      if (!s) return { ...none, msg: message(req.lang, 'storagePathMissing', { path }) };
      if (!s.isDirectory()) return { ...none, exists: true, msg: message(req.lang, 'storagePathNotDir', { path }) };
      // Read-only storages are fine on a directory we cannot write; the form says which it is.
      const writable = await access(path, constants.W_OK).then(
        () => true,
        () => false,
      );
      const space = await fsSpace(path);
      return { exists: true, directory: true, writable, ...space, msg: message(req.lang, writable ? 'storagePathOk' : 'storagePathNotWritable') };
    },
  };
}
