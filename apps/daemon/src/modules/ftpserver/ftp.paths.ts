/**
 * From an FTP path (absolute, or relative to the session's directory) to a place in a storage. The
 * session's directory is virtual (`/`, `/photos/2024`) and always clean; a client's argument is
 * joined to it as text and everything below the mount is handed, unchanged, to storages.resolve,
 * which makes the one path and permission decision (`..`, backslashes, NUL, symlinks out of the
 * root). The only `..` this file understands is the whole argument of CWD/CDUP, which moves the
 * virtual directory up one level and can never go above `/`.
 */
import { locate, virtualOf, type Mount } from '../../core/storagemounts.js';
import type { ResolvedPath, StorageGrant, StorageOp, StoragePrincipal, StoragesService } from '../../core/services/storages.js';
import { MsgError } from '../../lib/msgerror.js';

export { locate, type Mount };

/** The client's argument as a virtual path, without any normalisation of `..`. */
export function joinVirtual(cwd: string, arg: string): string {
  if (arg.startsWith('/')) return arg;
  if (arg === '' || arg === '.') return cwd;
  return cwd === '/' ? `/${arg}` : `${cwd}/${arg}`;
}

/** The parent of a clean virtual directory (`/` stays `/`). */
export function parentOf(cwd: string): string {
  const i = cwd.lastIndexOf('/');
  return i <= 0 ? '/' : cwd.slice(0, i);
}

/** A place resolved and permitted: the grant and the storages service's answer. */
export interface Target {
  mount: Mount;
  grant: StorageGrant;
  rp: ResolvedPath;
  /** The clean virtual path of this place (what PWD and MLST show). */
  virtual: string;
}

/** Why a path is refused, as the FTP reply says it. */
export class PathRefused extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/**
 * Resolves a virtual path inside a mount the principal may use, for an operation. The storages
 * service refuses anything out of the root and any operation the grant does not allow; its message
 * (in English: FTP has no language of its own) becomes the reply.
 */
export async function resolveTarget(
  storages: StoragesService,
  who: StoragePrincipal,
  mounts: readonly Mount[],
  virtual: string,
  op: StorageOp,
): Promise<Target> {
  const place = locate(virtual, mounts);
  if (place.kind === 'root') throw new PathRefused(550, 'Permission denied.');
  if (place.kind === 'none') throw new PathRefused(550, 'No such file or directory.');
  const grant = storages.grant(who, place.mount.storage, { remote: true });
  if (!grant) throw new PathRefused(550, 'No such file or directory.');
  let rp: ResolvedPath;
  try {
    rp = await storages.resolve(grant, place.inner, op);
  } catch (err) {
    // A remote storage that does not answer now is a transient failure (451), not a refusal.
    const down = err instanceof MsgError && err.msg.key === 'storageRemoteDown';
    throw new PathRefused(down ? 451 : 550, err instanceof MsgError ? `${err.message}.` : 'Permission denied.');
  }
  return { mount: place.mount, grant, rp, virtual: virtualOf(place.mount, mounts, rp.path) };
}
