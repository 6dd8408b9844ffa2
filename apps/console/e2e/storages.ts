/**
 * Storages and storage users made through the API, for the suites of the services that serve them
 * (WebDAV, FTP, the file browser): their screens need a storage to choose and a user to log in as.
 */
import { expect } from 'vitest';
import type { Daemon } from './harness';

export type Rights = Partial<Record<'read' | 'write' | 'delete', boolean>>;

/** A storage named `name` on the directory `path` (which exists); its key. */
export async function makeStorage(daemon: Daemon, apiToken: string, name: string, path: string): Promise<string> {
  const r = await daemon.api('POST', '/api/storage/rules', { name, path }, apiToken);
  expect(r.ret).toBe(0);
  return r.key as string;
}

/** Replaces the storage users, with their rights by storage key; anonymous access off. */
export async function setStorageUsers(daemon: Daemon, apiToken: string, users: Array<{ account: string; password: string; permissions: Record<string, Rights> }>): Promise<void> {
  expect((await daemon.api('PUT', '/api/storage/configure', { users, anonymous: { enable: false, storages: [] } }, apiToken)).ret).toBe(0);
}
