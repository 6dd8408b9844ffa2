/**
 * Test helpers for storage management and every storage service (WebDAV, FTP, the file browser):
 * storages on temp directories and storage users made through the real API, and the real `storages`
 * service of a test daemon. Here rather than in modules/storage/testing/ because a module's tests
 * may import only their own module and test/ (boundaries.test.ts). Never compiled into the build.
 */
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StorageInput, StoragePermission } from '@lucky/contracts';
import type { StoragesService } from '../core/services/storages.js';
import type { TestDaemon } from './harness.js';

export const EN = { headers: { 'lucky-lang': 'en_US' } };

/**
 * A fresh temp directory, `lucky-<tag>-…`, by its real path: the services answer real paths, so a
 * temp folder reached through a symlink would not compare equal. The caller removes it, or leaves
 * it to the OS's temp cleaning.
 */
export function tempDir(tag = 'storage'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), `lucky-${tag}-`)));
}

/** Creates a storage through the API (`path` defaults to a new temp directory); returns its key. */
export async function makeStorage(d: TestDaemon, o: Partial<StorageInput> = {}): Promise<string> {
  const body = { name: o.name ?? `storage-${Math.random().toString(36).slice(2, 8)}`, ...o, path: o.path ?? tempDir() };
  const r = await d.call<{ key: string }>('POST', '/api/storage/rules', body, EN);
  if (r.ret !== 0) throw new Error(`storage not saved: ${JSON.stringify(r)}`);
  return r.key;
}

export interface TestStorageUser {
  account: string;
  password: string;
  enable?: boolean;
  /** By storage key. */
  permissions?: Record<string, Partial<StoragePermission>>;
  /** OpenSSH public keys, one per line (SFTP). */
  publicKeys?: string;
}

/** Replaces the storage users and anonymous access (off unless given) through the API. */
export async function setStorageUsers(d: TestDaemon, users: TestStorageUser[], anonymous: { enable: boolean; storages: string[] } = { enable: false, storages: [] }): Promise<void> {
  const r = await d.call('PUT', '/api/storage/configure', { users, anonymous }, EN);
  if (r.ret !== 0) throw new Error(`storage users not saved: ${JSON.stringify(r)}`);
}

/** The daemon's real `storages` service (what a storage service gets as mod.services.storages). */
export function storagesOf(d: TestDaemon): Promise<StoragesService> {
  return d.runtime.deps.modules.service('storages');
}

/** Full rights, for a user who should be able to do everything in a storage. */
export const ALL: StoragePermission = { read: true, write: true, delete: true };
export const READ: StoragePermission = { read: true, write: false, delete: false };
