/** The storage module's own route: the directory check the form runs before saving. */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { message } from '@lucky/contracts';
import type { OwnHandlers } from '../../core/module.js';
import type { storageContract } from '@lucky/contracts';
import type { StorageContext } from './storage.state.js';
import { fsSpace } from './storage.usage.js';

export function storageRoutes(_mod: StorageContext): OwnHandlers<typeof storageContract> {
  return {
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
