/**
 * The conditions a request puts on a change: the If header (RFC 4918 §10.4) against locks and
 * ETags, the lock tokens a change to a locked place must submit, and the HTTP preconditions
 * (If-Match, If-None-Match, If-Unmodified-Since).
 */
import type { IncomingMessage } from 'node:http';
import { parseIf, type DavLock, type IfList } from './webdav.locks.js';
import { locate, rawPath } from './webdav.paths.js';
import { Answer, etagOf, type Meta } from './webdav.request.js';
import { statOf } from './webdav.files.js';
import { lockKey, parentPath, targetOf, type Ctx, type DavSite, type Target } from './webdav.site.js';

/**
 * The If header evaluated against current locks and ETags: 412 when no list holds. Returns the
 * lock tokens it submitted, which writes to locked resources must include.
 */
export async function evaluateIf(ctx: Ctx, self: Target): Promise<Set<string>> {
  const h = ctx.req.headers.if;
  const tokens = new Set<string>();
  if (h === undefined) return tokens;
  const lists = parseIf(String(h));
  if (!lists) throw new Answer(400);
  let any = false;
  for (const list of lists) {
    for (const c of list.conditions) if (c.kind === 'token') tokens.add(c.value);
    if (!any && (await listHolds(ctx, self, list))) any = true;
  }
  if (!any) throw new Answer(412);
  return tokens;
}

async function listHolds(ctx: Ctx, self: Target, list: IfList): Promise<boolean> {
  const { rule, d } = ctx.site;
  let t: Target | null = self;
  if (list.tag !== undefined) {
    const place = locate(rawPath(list.tag), rule.prefix, rule.mounts);
    if (place.kind !== 'mount') return false;
    const grant = d.storages.grant(ctx.who, place.mount.storage, { remote: true });
    if (!grant) return false;
    t = await targetOf(ctx.site, place.mount, grant, place.inner, 'read').catch(() => null);
    if (!t) return false;
  }
  const s = await statOf(t);
  const covering = d.locks.covering(t.key);
  for (const c of list.conditions) {
    let ok: boolean;
    if (c.kind === 'etag') ok = !!s && c.value.replace(/^W\//, '') === etagOf(s);
    else ok = covering.some((l) => l.token === c.value);
    if (ok === c.not) return false;
  }
  return true;
}

/** 423 when a lock held by someone (or under a token not submitted) stands in the way. */
export function checkLocks(ctx: Ctx, tokens: Set<string>, locks: DavLock[]): void {
  const mine = (l: DavLock) => tokens.has(l.token) && l.principal === ctx.who.account;
  for (const l of locks) {
    if (mine(l)) continue;
    // Shared locks: submitting any one of the shared tokens is enough.
    if (l.scope === 'shared' && locks.some((o) => o.scope === 'shared' && o.root === l.root && mine(o))) continue;
    throw new Answer(423, 'lock-token-submitted');
  }
}

/** The locks a change to `t` meets: on it (and, for a whole tree, below it), and on its parent's membership. */
export function locksFor(site: DavSite, t: Target, opts: { tree?: boolean; membership?: boolean }): DavLock[] {
  const locks = site.d.locks;
  const set = new Map<string, DavLock>();
  for (const l of locks.covering(t.key)) set.set(l.token, l);
  if (opts.tree) for (const l of locks.within(t.key)) set.set(l.token, l);
  if (opts.membership && t.rp.path !== '/') for (const l of locks.covering(lockKey(t.grant.storage, parentPath(t.rp.path)))) set.set(l.token, l);
  return [...set.values()];
}

export function checkPreconditions(req: IncomingMessage, s: Meta | null): void {
  const im = req.headers['if-match'];
  if (im !== undefined) {
    const tags = String(im).split(',').map((x) => x.trim());
    if (!s || !(tags.includes('*') || tags.includes(etagOf(s)))) throw new Answer(412);
  }
  const inm = req.headers['if-none-match'];
  if (inm !== undefined && s) {
    const tags = String(inm).split(',').map((x) => x.trim().replace(/^W\//, ''));
    if (tags.includes('*') || tags.includes(etagOf(s))) {
      if (req.method === 'GET' || req.method === 'HEAD') throw new Answer(304);
      throw new Answer(412);
    }
  }
  const ius = req.headers['if-unmodified-since'];
  if (ius && s && Math.floor(s.mtimeMs / 1000) > Math.floor(Date.parse(ius) / 1000)) throw new Answer(412);
}
