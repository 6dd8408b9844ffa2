/**
 * The mounts of a storage service's rule (WebDAV, FTP) as its form holds them: one storage at the
 * root, or storages as named top-level folders. The conversion both ways, the field a problem of
 * the mounts shows on, and the list's lines.
 */
import type { StorageMount, StorageView } from '@lucky/contracts';
import type { TextVars } from '../../i18n';
import { kitText, type KitTextId } from '../texts';

export type MountMode = 'root' | 'folders';
export type FolderForm = StorageMount;

export interface MountsForm {
  mountMode: MountMode;
  /** The storage at the root ('' = none chosen yet). */
  rootStorage: string;
  folders: FolderForm[];
}

/** The problem paths of the mounts that have a label (`field.…` in the kit's texts). */
export const MOUNT_FIELDS = ['mounts', 'mounts.name', 'mounts.storage'] as const;

const isRootMount = (mounts: readonly StorageMount[]) => mounts.length === 1 && mounts[0]!.name === '';

export function mountsToForm(mounts: readonly StorageMount[]): MountsForm {
  const root = isRootMount(mounts);
  return { mountMode: root ? 'root' : 'folders', rootStorage: root ? mounts[0]!.storage : '', folders: root ? [] : mounts.map((m) => ({ ...m })) };
}

/** The chosen mode's mounts; the other mode's choice stays in the form only. */
export function formToMounts(f: MountsForm): StorageMount[] {
  if (f.mountMode === 'root') return f.rootStorage ? [{ name: '', storage: f.rootStorage }] : [];
  return f.folders.map((m) => ({ name: m.name.trim(), storage: m.storage }));
}

/** Which field a problem is shown on: in root mode there is only the storage choice to show it on. */
export function mountProblemField(path: string, mode: MountMode): string {
  if (mode === 'root' && path.startsWith('mounts')) return 'rootStorage';
  return path;
}

/** What a rule serves, one line a mount: `root → Photos`, `photos → Photos`. */
export function mountLines(
  mounts: readonly StorageMount[],
  storages: readonly Pick<StorageView, 'key' | 'name'>[] | undefined,
  text: (id: KitTextId, vars?: TextVars) => string = kitText,
): string[] {
  const nameOf = (key: string) => storages?.find((s) => s.key === key)?.name ?? (storages ? text('storageMissing', { key }) : key);
  if (isRootMount(mounts)) return [text('mountRoot', { storage: nameOf(mounts[0]!.storage) })];
  return mounts.map((m) => `${m.name} → ${nameOf(m.storage)}`);
}
