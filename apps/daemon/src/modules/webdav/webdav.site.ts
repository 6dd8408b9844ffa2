/**
 * What the WebDAV methods share about one rule's server: its rule, its dependencies and counters
 * (`DavSite`), the request being served (`Ctx`), and the places a request names, each resolved and
 * permitted by the storages service (`Target`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Msg, WebdavRule } from '@lucky/contracts';
import type { ResolvedPath, StorageGrant, StorageOp, StoragePrincipal, StoragesService } from '../../core/services/storages.js';
import type { DeadProps } from './webdav.props.js';
import type { LockTable } from './webdav.locks.js';
import { hrefOf, locate, rawPath, type Mount } from './webdav.paths.js';
import { Answer, hdr, isRemoteDown } from './webdav.request.js';

export interface AccessEntry {
  user: string;
  method: string;
  path: string;
  status: number;
  bytes: number;
}

export interface DavCounters {
  requests: number;
  bytesIn: number;
  bytesOut: number;
  denied: number;
}

export interface DavDeps {
  storages: StoragesService;
  props: DeadProps;
  locks: LockTable;
  access(e: AccessEntry): void;
  note(m: Msg): void;
  /** Large file bodies by sendfile on plain connections (env.nativeRelay). */
  nativeFiles?: boolean;
}

/** One rule's server as its methods see it; `rule` is the current one (rules update in place). */
export interface DavSite {
  readonly rule: WebdavRule;
  readonly d: DavDeps;
  readonly counters: DavCounters;
}

/** A request inside a mount, its user logged in and granted the mount's storage. */
export interface Ctx {
  site: DavSite;
  who: StoragePrincipal;
  req: IncomingMessage;
  res: ServerResponse;
  mount: Mount;
  grant: StorageGrant;
  inner: string;
}

/** A resolved place inside a storage, with the keys locks and dead properties use. */
export interface Target {
  mount: Mount;
  grant: StorageGrant;
  rp: ResolvedPath;
  /** Lock key: storage and path, so that locks follow the storage whichever URL names it. */
  key: string;
  href(collection: boolean): string;
}

export const lockKey = (storage: string, path: string) => `${storage}\u0000${path}`;
export const parentPath = (p: string) => (p === '/' ? '/' : p.slice(0, p.lastIndexOf('/')) || '/');

/** The URL of a path in a mount; a rule of one unnamed mount serves it at the top. */
export function hrefIn(site: DavSite, prefix: string, mount: Mount, path: string, collection: boolean): string {
  return hrefOf(prefix, site.rule.mounts.length === 1 && mount.name === '' ? null : mount, path, collection);
}

/**
 * What a storages service error answers: a remote that failed to answer is the remote's error
 * (502 by statusOfFsError); anything else (out of the root, a bad name, not permitted) is the
 * storages service saying no.
 */
export function refused(err: unknown): never {
  if (isRemoteDown(err)) throw err;
  throw new Answer(403);
}

export async function targetOf(site: DavSite, mount: Mount, grant: StorageGrant, inner: string, op: StorageOp): Promise<Target> {
  let rp: ResolvedPath;
  try {
    rp = await site.d.storages.resolve(grant, inner, op);
  } catch (err) {
    refused(err);
  }
  const prefix = site.rule.prefix;
  return { mount, grant, rp, key: lockKey(grant.storage, rp.path), href: (c) => hrefIn(site, prefix, mount, rp.path, c) };
}

/** The request's own place, resolved for `op`. */
export const targetOfCtx = (ctx: Ctx, op: StorageOp): Promise<Target> => targetOf(ctx.site, ctx.mount, ctx.grant, ctx.inner, op);

/** The Destination header as a place we serve, resolved for writing. */
export async function destination(ctx: Ctx): Promise<Target> {
  const h = hdr(ctx.req, 'destination');
  if (!h) throw new Answer(400);
  const { rule, d } = ctx.site;
  const place = locate(rawPath(h), rule.prefix, rule.mounts);
  if (place.kind === 'bad') throw new Answer(400);
  if (place.kind === 'none') throw new Answer(502);
  if (place.kind === 'root') throw new Answer(403);
  const grant = d.storages.grant(ctx.who, place.mount.storage, { remote: true });
  if (!grant) throw new Answer(403);
  return targetOf(ctx.site, place.mount, grant, place.inner, 'write');
}
