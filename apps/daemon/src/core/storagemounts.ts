/**
 * Where a virtual path of a storage service's tree lands: the tree shows one storage at its root,
 * or several as top-level folders (`/photos`, `/docs`). Shared by the services whose clients walk
 * a tree of their own (FTP, SFTP). Only mount names are matched here; everything below a mount is
 * handed unchanged to storages.resolve, which makes the one path and permission decision.
 */
import { Ret, type StorageMount } from '@lucky/contracts';
import { fail } from './envelope.js';
import type { StoragesService } from './services/storages.js';

export type Mount = StorageMount;

export type Place =
  /** The virtual root listing the mounts (several storages as top-level folders). */
  | { kind: 'root' }
  /** Inside a mount: `inner` is still unchecked (storages.resolve checks it). */
  | { kind: 'mount'; mount: Mount; inner: string; virtual: string }
  /** A top-level name that is no mount. */
  | { kind: 'none' };

/** The one storage at the root of the tree, if that is how the tree is made. */
export function rootMount(mounts: readonly Mount[]): Mount | undefined {
  return mounts.length === 1 && mounts[0]!.name === '' ? mounts[0] : undefined;
}

export function locate(virtual: string, mounts: readonly Mount[]): Place {
  const single = rootMount(mounts);
  if (single) return { kind: 'mount', mount: single, inner: virtual, virtual };
  // Empty and `.` segments only; `..` is kept for storages.resolve (or is no mount's name).
  const segments = virtual.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.length === 0) return { kind: 'root' };
  const name = segments[0]!;
  const mount = mounts.find((m) => m.name.toLowerCase() === name.toLowerCase());
  if (!mount) return { kind: 'none' };
  return { kind: 'mount', mount, inner: `/${segments.slice(1).join('/')}`, virtual };
}

/** The clean virtual path of a place inside a mount. */
export function virtualOf(mount: Mount, mounts: readonly Mount[], inner: string): string {
  if (rootMount(mounts)) return inner;
  return inner === '/' ? `/${mount.name}` : `/${mount.name}${inner}`;
}

/**
 * At save: every mounted storage exists, and a service that does not serve remote storages yet is
 * not given one (refused with its name, rather than a storage that would serve nothing).
 */
export function checkMountedStorages(storages: StoragesService, mounts: readonly Mount[], service: string, servesRemote: boolean): void {
  for (const m of mounts) {
    const s = storages.describe(m.storage);
    if (!s) throw fail(Ret.badRequest, 'storageUnknown', { storage: m.storage });
    if (s.kind !== 'local' && !servesRemote) throw fail(Ret.badRequest, 'storageRemoteNotServed', { service, name: s.name });
  }
}
