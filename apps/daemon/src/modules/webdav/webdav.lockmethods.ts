/**
 * LOCK and UNLOCK (RFC 4918 §9.10, §9.11): write locks, exclusive or shared, of depth 0 or
 * infinity, refreshed through the If header; a LOCK of an unmapped URL creates an empty file.
 */
import { writeFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { checkLocks, evaluateIf, locksFor } from './webdav.conditions.js';
import { parseIf, parseTimeout, type DavLock } from './webdav.locks.js';
import { Answer, davBody, hdr, MAX_XML, readBody } from './webdav.request.js';
import { createEmpty, statOf } from './webdav.files.js';
import { targetOfCtx, type Ctx } from './webdav.site.js';
import { child, DAV, esc, serialise } from '../../lib/xml.js';

/** A lock as DAV:activelock XML, for lock discovery and the LOCK answer. */
export function activeLock(l: DavLock): string {
  return (
    `<D:activelock><D:locktype><D:write/></D:locktype><D:lockscope><D:${l.scope}/></D:lockscope><D:depth>${l.depth === '0' ? '0' : 'infinity'}</D:depth>` +
    `${l.owner ? `<D:owner>${l.owner}</D:owner>` : ''}<D:timeout>Second-${Math.max(0, Math.round((l.expires - Date.now()) / 1000))}</D:timeout>` +
    `<D:locktoken><D:href>${esc(l.token)}</D:href></D:locktoken><D:lockroot><D:href>${esc(l.rootHref)}</D:href></D:lockroot></D:activelock>`
  );
}

export async function lockResource(ctx: Ctx): Promise<void> {
  const t = await targetOfCtx(ctx, 'write');
  const body = await readBody(ctx.req, MAX_XML, ctx.site.counters);
  const timeout = parseTimeout(hdr(ctx.req, 'timeout'), ctx.site.rule.lockTimeout);
  if (!body.trim()) {
    // A refresh: the If header names the lock.
    const h = ctx.req.headers.if;
    const lists = h ? parseIf(String(h)) : null;
    if (!lists) throw new Answer(400);
    const covering = ctx.site.d.locks.covering(t.key);
    const lock = covering.find((l) => lists.some((li) => li.conditions.some((c) => c.kind === 'token' && !c.not && c.value === l.token)));
    if (!lock || lock.principal !== ctx.who.account) throw new Answer(412, 'lock-token-matches-request-uri');
    ctx.site.d.locks.refresh(lock, timeout);
    return lockAnswer(ctx.res, 200, lock, false);
  }
  const root = davBody(body, 'lockinfo');
  const scopeEl = child(root, DAV, 'lockscope');
  const scope = scopeEl && child(scopeEl, DAV, 'shared') ? 'shared' : scopeEl && child(scopeEl, DAV, 'exclusive') ? 'exclusive' : null;
  const typeEl = child(root, DAV, 'locktype');
  if (!scope || !typeEl || !child(typeEl, DAV, 'write')) throw new Answer(400);
  const ownerEl = child(root, DAV, 'owner');
  const owner = ownerEl ? ownerEl.children.map((c) => (typeof c === 'string' ? esc(c) : serialise(c))).join('') : '';
  const depthH = (hdr(ctx.req, 'depth') ?? 'infinity').toLowerCase();
  if (depthH !== '0' && depthH !== 'infinity') throw new Answer(400);
  const tokens = await evaluateIf(ctx, t);
  let created = false;
  if (!t.rp.exists) {
    // Locking an unmapped URL creates an empty resource (RFC 4918 §7.3; no lock-null resources).
    checkLocks(ctx, tokens, locksFor(ctx.site, t, { membership: true }));
    try {
      await createEmpty(t);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new Answer(409);
      throw err;
    }
    created = true;
  }
  const lock = ctx.site.d.locks.create({ root: t.key, rootHref: t.href(false), scope, depth: depthH === '0' ? '0' : 'infinity', owner, principal: ctx.who.account, timeoutSec: timeout });
  if (!lock) throw new Answer(423, 'no-conflicting-lock');
  if (created) {
    const s = await statOf(t);
    if (s?.isDirectory()) lock.rootHref = t.href(true);
  } else if ((await statOf(t))?.isDirectory()) lock.rootHref = t.href(true);
  lockAnswer(ctx.res, created ? 201 : 200, lock, true);
}

function lockAnswer(res: ServerResponse, status: number, lock: DavLock, withHeader: boolean): void {
  const body = `<?xml version="1.0" encoding="utf-8"?>\n<D:prop xmlns:D="DAV:"><D:lockdiscovery>${activeLock(lock)}</D:lockdiscovery></D:prop>\n`;
  res.writeHead(status, {
    'content-type': 'application/xml; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...(withHeader ? { 'lock-token': `<${lock.token}>` } : {}),
  });
  res.end(body);
}

export async function unlockResource(ctx: Ctx): Promise<void> {
  const t = await targetOfCtx(ctx, 'write');
  const h = ctx.req.headers['lock-token'];
  const m = h ? /^\s*<([^>]+)>\s*$/.exec(String(h)) : null;
  if (!m) throw new Answer(400);
  const lock = ctx.site.d.locks.covering(t.key).find((l) => l.token === m[1]);
  if (!lock) throw new Answer(409, 'lock-token-matches-request-uri');
  if (lock.principal !== ctx.who.account) throw new Answer(403);
  ctx.site.d.locks.remove(lock.token);
  ctx.res.writeHead(204, { 'content-length': 0 });
  ctx.res.end();
}
