/**
 * `storages`: the storages (local directories) and storage users of the storage management module,
 * and the ONE permission and path check every storage service (WebDAV, FTP, the file browser)
 * calls: one account works everywhere, one rule decides everywhere, and no path leaves its root.
 * Provided by the storage management module.
 */
import type { StorageKind, StoragePermission } from '@lucky/contracts';
import type { PassedBody } from '../filebody.js';

export type StorageOp = 'read' | 'write' | 'delete';

/**
 * Names starting so are files being written (uploads on their way, renamed over the real name at
 * the end): every storage service hides them from its listings.
 */
export const STORAGE_TEMP_PREFIX = '.lucky-upload-';

/** Who asks: a storage user after login, the anonymous user, or the console's admin (full access). */
export interface StoragePrincipal {
  kind: 'user' | 'anonymous' | 'admin';
  /** The account; '' for the anonymous user, 'admin' for the console. */
  account: string;
}

/** What a remote storage says of a name. */
export interface RemoteStat {
  kind: 'file' | 'dir';
  size: number;
  mtimeMs: number;
}

export interface RemoteEntry extends RemoteStat {
  name: string;
}

/**
 * A remote storage's files (a WebDAV server, an SFTP server, an S3 bucket) by clean paths inside
 * the storage (`/`, `/a/b.txt`, as storages.resolve answers them). Bodies are streams both ways,
 * never whole in memory. A failure of the remote is a MsgError `storageRemoteDown` naming it, for
 * that request only. Listings may come from a short cache that our own changes drop at once.
 */
export interface RemoteFs {
  /** null when the name does not exist. */
  stat(path: string): Promise<RemoteStat | null>;
  list(path: string): Promise<RemoteEntry[]>;
  /** The file's bytes from `start` to `end` (inclusive, as HTTP ranges), or all of them. */
  read(path: string, range?: { start: number; end?: number }): Promise<NodeJS.ReadableStream>;
  /**
   * The bytes `start` to `end` (inclusive) left unread on a plain connection of their own, for a
   * caller that passes them on with the native relay (core/filebody.ts sendPassedBody) and then
   * destroys the socket. Null when this remote cannot (TLS, a kind that has no such connection, an
   * answer without a length): read() them instead.
   */
  readRaw(path: string, range: { start: number; end: number }): Promise<PassedBody | null>;
  /**
   * Streams `body` into the file. It is there complete when this resolves, and never as if complete
   * when it rejects (an interrupted body leaves the old file or none).
   */
  write(path: string, body: NodeJS.ReadableStream, size?: number): Promise<void>;
  mkdir(path: string): Promise<void>;
  /** A file. */
  remove(path: string): Promise<void>;
  /** A folder and everything in it. */
  removeTree(path: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
}

/** A storage as a principal may use it. */
export interface StorageGrant {
  /** The storage's rule key. */
  storage: string;
  name: string;
  /** The real directory (realpath at the time of the call). */
  root: string;
  readOnly: boolean;
  quota: number | null;
  /** What this principal may do here (read-only storages never grant write or delete). */
  can: StoragePermission;
  /** The storages' version when it was taken: resolve trusts a grant no storage change has passed since. */
  version: number;
  /** A remote storage's files; null for a local directory (then `root` and ResolvedPath.real are paths on disk). */
  remote: RemoteFs | null;
}

/** A path inside a storage, checked: `real` is under the grant's root (symlinks resolved). */
export interface ResolvedPath {
  grant: StorageGrant;
  /** The path inside the storage, normalised: `/a/b.txt`, `/` for the root. */
  path: string;
  /**
   * The absolute path on disk; for a name that does not exist yet, its resolved parent joined with
   * the name. For a remote storage, the clean path inside it (the same as `path`).
   */
  real: string;
  exists: boolean;
}

/** A path read for a client in one step: what it is and, for a small file, its content. */
export interface ReadResult {
  /** The path inside the storage, normalised as in ResolvedPath. */
  path: string;
  kind: 'file' | 'dir' | 'other';
  size: number;
  mtimeMs: number;
  ino: number;
  /** The whole content when it is a file of at most the `max` asked; null otherwise (stream it). */
  data: Buffer | null;
}

/** What a write did. */
export interface WriteResult {
  path: string;
  /** false when it replaced a file. */
  created: boolean;
  size: number;
  mtimeMs: number;
  ino: number;
}

export interface LoginAttempt {
  account: string;
  password: string;
  /** The client's address, for the lock-out shared with the console's login. */
  ip: string;
  /** The service asking ("webdav", "ftpserver"), for logs. */
  service: string;
}

/** A public key a client offers (SFTP): its type and the key blob as sent. */
export interface OfferedKey {
  account: string;
  /** The blob's bytes (its own type name first, as in an authorized_keys line's base64). */
  blob: Buffer;
  ip: string;
  service: string;
}

/** A service that reads and writes through StorageGrant.remote where a storage has one. */
export interface ServesRemote {
  remote?: boolean;
}

export interface StoragesService {
  /** The principal for these credentials, or null (wrong, switched off, locked out: the attempt is counted). */
  login(attempt: LoginAttempt): Promise<StoragePrincipal | null>;
  /**
   * The user (enabled) whose public keys hold this key, or null; null too while the address is
   * locked out. Nothing is counted: offering a key is no guess (a client offers each of its keys in
   * turn), and the caller still has to check the client's signature.
   */
  keyOwner(offer: OfferedKey): StoragePrincipal | null;
  /** A storage by its key, whatever its state (switched off, unreachable): its name and kind; null when there is none. */
  describe(storage: string): { name: string; kind: StorageKind } | null;
  /** The anonymous principal when anonymous access is on. */
  anonymous(): StoragePrincipal | null;
  /**
   * The enabled storages this principal can see, with what it may do in each. Remote storages only
   * for a service that says it serves them (`remote: true`): their ResolvedPath.real is no path on
   * disk, and a service that took it for one would touch the daemon's own files.
   */
  grants(who: StoragePrincipal, o?: ServesRemote): StorageGrant[];
  grant(who: StoragePrincipal, storage: string, o?: ServesRemote): StorageGrant | null;
  /**
   * An enabled storage that cannot be served now: a remote that does not answer, a directory that
   * is gone. A service tells its clients "try later" for it rather than "forbidden".
   */
  down(storage: string): boolean;
  /**
   * Resolves a client's path (already URL-decoded once) inside a grant and checks the operation:
   * `..`, encoded or doubly encoded separators, backslashes, NUL bytes and symlinks out of the root
   * are refused (MsgError storagePathEscapes / storagePathInvalid), so is an operation the grant
   * does not allow (storageDenied / storageReadOnly). Call it at every access: symlinks are
   * resolved now, not when the storage was saved.
   */
  resolve(grant: StorageGrant, path: string, op: StorageOp): Promise<ResolvedPath>;
  /**
   * resolve(grant, path, 'read') and a stat, plus the content of a file of at most `max` bytes:
   * the path of a download. Where the kernel can confine an open below a directory (Linux
   * openat2) it is one trip to the disk; elsewhere it is resolve, stat and a read. Null when the
   * path does not exist; refusals as resolve.
   */
  read(grant: StorageGrant, path: string, max: number): Promise<ReadResult | null>;
  /**
   * Writes a whole file that fits in memory (an upload of known small size, a text file saved from
   * an editor): resolve(grant, path, 'write') and the quota, then the content goes into a new file
   * beside it that is renamed over the name, so a reader sees the old content or the new, never
   * half. One trip to the disk where openat2 exists. Refusals as resolve, and storageNoFolder (the
   * folder is missing), storageIsFolder (the name is a folder), storageQuotaFull.
   */
  write(grant: StorageGrant, path: string, data: Buffer): Promise<WriteResult>;
  /** Bytes that may still be written to the storage; Infinity without a quota. */
  room(grant: StorageGrant): Promise<number>;
  /** A service says which storages it serves now (shown beside each storage, asked before a delete). */
  setUsage(service: string, storages: string[]): void;
}
