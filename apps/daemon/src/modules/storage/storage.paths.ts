/**
 * THE path check of every storage service (WebDAV, FTP, the file browser): a client's path becomes
 * a path on disk under the storage's root, or is refused. Two steps: the text is judged and
 * normalised without touching the disk (cleanClientPath), then the disk decides (underRoot): the
 * deepest existing ancestor is resolved with realpath NOW, so a symlink made after the storage was
 * saved, or after the grant was taken, still cannot lead out of the root.
 */
import { lstat, realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { MsgError } from '../../lib/msgerror.js';

const escapes = () => new MsgError({ key: 'storagePathEscapes' });
const invalid = () => new MsgError({ key: 'storagePathInvalid' });

/** Longer than any path a client needs; keeps the work per request bounded. */
const MAX_PATH = 8192;

/**
 * What a segment may turn into when some layer decodes it once more: the services decode once, so
 * `%2e%2e` is a literal name for us — but a proxy, a client library or a later service that decodes
 * again would see `..`. Such names are refused rather than trusted to stay literal everywhere.
 */
function decodesToEscape(segment: string): boolean {
  let cur = segment;
  // Each round peels one layer of encoding (%252e → %2e → .); a few rounds cover every real case.
  for (let round = 0; round < 4 && cur.includes('%'); round++) {
    let next: string;
    try {
      next = decodeURIComponent(cur);
    } catch {
      // Not a valid encoding (a name like "100%.txt"): nothing can decode it into a separator.
      return false;
    }
    if (next === cur) return false;
    if (next.includes('/') || next.includes('\\') || next.includes('\0') || next === '..' || next === '.') return true;
    cur = next;
  }
  return false;
}

/**
 * A client's path (URL-decoded once) as a clean path inside a storage: `/a/b`, `/` for the root.
 * An absolute path (`/etc/passwd`) is taken as inside the storage, never as a path of the system.
 * Throws MsgError storagePathInvalid / storagePathEscapes.
 */
export function cleanClientPath(input: string): string {
  if (typeof input !== 'string' || input.length > MAX_PATH) throw invalid();
  if (input.includes('\0')) throw invalid();
  // A backslash is a separator to Windows clients and to Samba behind the same directory.
  if (input.includes('\\')) throw escapes();
  const segments: string[] = [];
  for (const seg of input.split('/')) {
    if (seg === '' || seg === '.') continue;
    // Even `a/../b`, which would stay inside: no client needs `..`, and refusing it all is simpler to trust.
    if (seg === '..') throw escapes();
    if (decodesToEscape(seg)) throw escapes();
    segments.push(seg);
  }
  // `C:` first: a Windows absolute path sent as is; no storage holds a folder a client means that way.
  if (segments.length > 0 && /^[A-Za-z]:$/.test(segments[0]!)) throw invalid();
  return '/' + segments.join('/');
}

/** Whether `real` is `root` or inside it (both already real paths). */
export function isUnder(root: string, real: string): boolean {
  if (real === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return real.startsWith(prefix);
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * Resolves a clean storage path under a real root: realpath of the deepest existing ancestor, which
 * must stay under the root. A component that exists but cannot be resolved (a dangling symlink, a
 * loop) is refused: writing through it would follow the link wherever it points.
 */
export async function underRoot(rootReal: string, clean: string): Promise<{ real: string; exists: boolean }> {
  const segments = clean.split('/').filter((s) => s !== '');
  for (let keep = segments.length; keep >= 0; keep--) {
    const candidate = join(rootReal, ...segments.slice(0, keep));
    let real: string;
    try {
      real = await realpath(candidate);
    } catch (err) {
      if (!isMissing(err) && (err as NodeJS.ErrnoException).code !== 'ELOOP') throw err;
      continue;
    }
    if (!isUnder(rootReal, real)) throw escapes();
    const tail = segments.slice(keep);
    if (tail.length > 0) {
      // The first missing name: if lstat finds it, it is a link realpath could not follow.
      const first = join(real, tail[0]!);
      const there = await lstat(first).then(
        () => true,
        (err: unknown) => (isMissing(err) ? false : Promise.reject(err)),
      );
      if (there) throw escapes();
    }
    return { real: join(real, ...tail), exists: tail.length === 0 };
  }
  // Not even the root resolves: the storage's directory is gone.
  throw new MsgError({ key: 'storagePathMissing', vars: { path: rootReal } });
}
