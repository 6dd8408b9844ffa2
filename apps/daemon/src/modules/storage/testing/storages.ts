/**
 * Test helpers for every storage service (WebDAV now, FTP and the file browser next): make a
 * storage on a temp directory and storage users through the real API, and get the real `storages`
 * service of a test daemon. Never compiled into the build.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StorageInput, StoragePermission } from '@lucky/contracts';
import type { StoragesService } from '../../../core/services/storages.js';
import type { TestDaemon } from '../../../test/harness.js';

/** A fresh temp directory (the caller removes it, or leaves it to the OS's temp cleaning). */
export function tempDir(prefix = 'lucky-storage-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Creates a storage through the API; `path` defaults to a new temp directory. Returns its key and directory. */
export async function makeStorage(d: TestDaemon, o: Partial<StorageInput> = {}): Promise<{ key: string; path: string }> {
  const path = o.path ?? tempDir();
  const res = await d.call<{ key: string }>('POST', '/api/storage/rules', { name: o.name ?? `storage-${Math.random().toString(36).slice(2, 8)}`, ...o, path });
  if (res.ret !== 0) throw new Error(`makeStorage: ${res.msg}`);
  return { key: res.key, path };
}

export interface TestStorageUser {
  account: string;
  password: string;
  enable?: boolean;
  /** By storage key. */
  permissions?: Record<string, Partial<StoragePermission>>;
}

/** Replaces the storage users (and anonymous access) through the API. */
export async function setStorageUsers(d: TestDaemon, users: TestStorageUser[], anonymous: { enable: boolean; storages: string[] } = { enable: false, storages: [] }): Promise<void> {
  const res = await d.call('PUT', '/api/storage/configure', { users, anonymous });
  if (res.ret !== 0) throw new Error(`setStorageUsers: ${res.msg}`);
}

/** The daemon's real `storages` service (what WebDAV gets as mod.services.storages). */
export function storagesOf(d: TestDaemon): Promise<StoragesService> {
  return d.runtime.deps.modules.service('storages');
}

/** Full rights, for a user who should be able to do everything in a storage. */
export const ALL: StoragePermission = { read: true, write: true, delete: true };
export const READ: StoragePermission = { read: true, write: false, delete: false };
