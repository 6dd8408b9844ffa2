/**
 * From a client's URL to a place in a storage. The raw request target is used, never a URL
 * parser's normalised one: `new URL()` would fold `..` and `%2e%2e` away before the storages
 * service could see (and refuse) them. Everything below the mount is handed to storages.resolve,
 * which makes the path and permission decision.
 */
import type { WebdavRule } from '@lucky/contracts';

export type Mount = WebdavRule['mounts'][number];

export type Place =
  /** The prefix root when storages are top-level folders: a virtual collection listing them. */
  | { kind: 'root' }
  /** Inside a mount: `inner` is decoded once and still unchecked (storages.resolve checks it). */
  | { kind: 'mount'; mount: Mount; inner: string }
  /** Not under the prefix, or a top-level name that is no mount. */
  | { kind: 'none' }
  /** The URL cannot be decoded. */
  | { kind: 'bad' };

/** The path of a request target (origin or absolute form), raw, without its query. */
export function rawPath(target: string): string {
  let t = target;
  const abs = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*/.exec(t);
  if (abs) t = t.slice(abs[0].length) || '/';
  // A fragment is never sent by a correct client; kept in the name, it cannot widen a DELETE to the folder.
  const q = t.indexOf('?');
  return q === -1 ? t : t.slice(0, q);
}

function decode(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

export function locate(raw: string, prefix: string, mounts: readonly Mount[]): Place {
  let rest: string;
  if (prefix === '/') rest = raw;
  else if (raw === prefix) rest = '/';
  else if (raw.startsWith(`${prefix}/`)) rest = raw.slice(prefix.length);
  else return { kind: 'none' };
  if (!rest.startsWith('/')) return { kind: 'none' };
  const single = mounts.length === 1 && mounts[0]!.name === '' ? mounts[0] : undefined;
  if (single) {
    const inner = decode(rest);
    return inner === null ? { kind: 'bad' } : { kind: 'mount', mount: single, inner };
  }
  const m = /^\/([^/]*)(\/.*)?$/.exec(rest)!;
  if (m[1] === '') return { kind: 'root' };
  const name = decode(m[1]!);
  if (name === null) return { kind: 'bad' };
  const mount = mounts.find((x) => x.name.toLowerCase() === name.toLowerCase());
  if (!mount) return { kind: 'none' };
  const inner = decode(m[2] ?? '/');
  return inner === null ? { kind: 'bad' } : { kind: 'mount', mount, inner };
}

/** Encodes a path for an href, segment by segment. */
export function encodePath(p: string): string {
  return p
    .split('/')
    .map((s) => encodeURIComponent(s).replace(/%40/g, '@').replace(/%2C/g, ','))
    .join('/');
}

/** The href of a place inside a mount (`inner` normalised, `/` for the mount's root). */
export function hrefOf(prefix: string, mount: Mount | null, inner: string, collection: boolean): string {
  const base = prefix === '/' ? '' : prefix;
  const m = mount && mount.name !== '' ? `/${encodeURIComponent(mount.name)}` : '';
  let p = base + m + (inner === '/' ? '/' : encodePath(inner));
  if (collection && !p.endsWith('/')) p += '/';
  if (!collection && p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  return p || '/';
}
