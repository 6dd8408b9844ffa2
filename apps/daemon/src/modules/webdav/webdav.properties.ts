/**
 * Properties (RFC 4918 §9.1, §9.2, RFC 4331): PROPFIND of live properties (computed from a stat),
 * dead ones (kept per storage and path) and quota, and PROPPATCH of dead ones, all or nothing.
 */
import { statfs } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { basename } from 'node:path';
import type { StorageGrant } from '../../core/services/storages.js';
import { contentTypeOf } from '../../lib/http/files.js';
import { checkLocks, evaluateIf, locksFor } from './webdav.conditions.js';
import { activeLock } from './webdav.lockmethods.js';
import { propKey, type PropMap } from './webdav.props.js';
import { Answer, davBody, depthOf, etagOf, hdr, MAX_XML, multistatus, readBody } from './webdav.request.js';
import { childrenOf, statOf, type DavStat } from './webdav.files.js';
import { hrefIn, lockKey, targetOfCtx, type Ctx, type DavCounters, type DavSite, type Target } from './webdav.site.js';
import { child, DAV, elements, esc, serialise, type XmlElement } from '../../lib/xml.js';

export async function quotaOf(site: DavSite, grant: StorageGrant): Promise<{ available: number; used: number } | null> {
  // A remote's space is its server's: not said rather than guessed.
  if (grant.remote) return null;
  const fs = await statfs(grant.root);
  const fsAvail = fs.bavail * fs.bsize;
  const room = await site.d.storages.room(grant);
  if (grant.quota !== null && Number.isFinite(room)) return { available: Math.max(0, Math.min(room, fsAvail)), used: Math.max(0, grant.quota - room) };
  return { available: fsAvail, used: (fs.blocks - fs.bfree) * fs.bsize };
}

/** The live properties of a resource, by name in DAV:, as XML text of their values. */
function live(site: DavSite, t: Target | null, s: DavStat, name: string, displayName: string): string | undefined {
  switch (name) {
    case 'resourcetype':
      return s.isDirectory() ? '<D:collection/>' : '';
    case 'getlastmodified':
      return s.mtime.toUTCString();
    case 'creationdate':
      return new Date(s.birthtimeMs || s.ctimeMs).toISOString();
    case 'getetag':
      return esc(etagOf(s));
    case 'displayname':
      return esc(displayName);
    case 'getcontentlength':
      return s.isDirectory() ? undefined : String(s.size);
    case 'getcontenttype':
      return s.isDirectory() ? undefined : contentTypeOf(displayName);
    case 'supportedlock':
      return '<D:lockentry><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry><D:lockentry><D:lockscope><D:shared/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry>';
    case 'lockdiscovery':
      return t ? site.d.locks.covering(t.key).map((l) => activeLock(l)).join('') : '';
    default:
      return undefined;
  }
}

const ALLPROP = ['resourcetype', 'getlastmodified', 'creationdate', 'getetag', 'displayname', 'getcontentlength', 'getcontenttype', 'supportedlock', 'lockdiscovery'];

export async function propfind(ctx: Ctx): Promise<void> {
  const t = await targetOfCtx(ctx, 'read');
  const { depth, noroot } = depthOf(hdr(ctx.req, 'depth'));
  if (depth !== '0' && depth !== '1') throw new Answer(403, 'propfind-finite-depth');
  const req = await propRequest(ctx.req, ctx.site.counters);
  const s = await statOf(t);
  if (!s) throw new Answer(404);
  const quota = req.names?.some((n) => n.ns === DAV && /^quota-(available|used)-bytes$/.test(n.name)) ? await quotaOf(ctx.site, t.grant) : null;
  const parts = noroot && depth === '1' ? [] : [propResponse(ctx.site, t.href(s.isDirectory()), t, s, req, quota, t.grant.storage, t.rp.path, basename(t.rp.path) || ctx.mount.name || '/')];
  if (depth === '1' && s.isDirectory()) {
    const resolveLink = async (path: string) => (await ctx.site.d.storages.resolve(t.grant, path, 'read').catch(() => null))?.real ?? null;
    for (const c of await childrenOf(t, resolveLink)) {
      const ct: Target = { ...t, rp: { ...t.rp, path: c.path, real: c.real, exists: true }, key: lockKey(t.grant.storage, c.path), href: (col) => hrefIn(ctx.site, ctx.site.rule.prefix, ctx.mount, c.path, col) };
      parts.push(propResponse(ctx.site, ct.href(c.stat.isDirectory()), ct, c.stat, req, quota, t.grant.storage, c.path, c.name));
    }
  }
  multistatus(ctx.res, parts);
}

/** What a PROPFIND body asks: named properties, their names only, or all (with includes). */
export async function propRequest(req: IncomingMessage, counters: DavCounters): Promise<{ mode: 'prop' | 'propname' | 'allprop'; names?: Array<{ ns: string; name: string }> }> {
  const body = await readBody(req, MAX_XML, counters);
  if (!body.trim()) return { mode: 'allprop' };
  const root = davBody(body, 'propfind');
  const prop = child(root, DAV, 'prop');
  if (prop) return { mode: 'prop', names: elements(prop).map((e) => ({ ns: e.ns, name: e.name })) };
  if (child(root, DAV, 'propname')) return { mode: 'propname' };
  if (child(root, DAV, 'allprop')) {
    const inc = child(root, DAV, 'include');
    return { mode: 'allprop', ...(inc ? { names: elements(inc).map((e) => ({ ns: e.ns, name: e.name })) } : {}) };
  }
  throw new Answer(400);
}

export function propResponse(
  site: DavSite,
  href: string,
  t: Target | null,
  s: DavStat,
  req: { mode: string; names?: Array<{ ns: string; name: string }> },
  quota: { available: number; used: number } | null,
  storage: string | null,
  path: string,
  display: string,
): string {
  const dead: PropMap = storage ? site.d.props.get(storage, path) : {};
  const found: string[] = [];
  const missing: string[] = [];
  const liveValue = (ns: string, name: string): string | undefined => {
    if (ns !== DAV) return undefined;
    if (name === 'quota-available-bytes' && quota && s.isDirectory()) return String(quota.available);
    if (name === 'quota-used-bytes' && quota && s.isDirectory()) return String(quota.used);
    return live(site, t, s, name, display);
  };
  const emptyTag = (ns: string, name: string) => (ns === DAV ? `<D:${name}/>` : ns ? `<R:${name} xmlns:R="${esc(ns)}"/>` : `<${name} xmlns=""/>`);
  const liveTag = (name: string, v: string) => (v === '' ? `<D:${name}/>` : `<D:${name}>${v}</D:${name}>`);
  if (req.mode === 'propname') {
    for (const n of ALLPROP) if (live(site, t, s, n, display) !== undefined) found.push(`<D:${n}/>`);
    for (const k of Object.keys(dead)) {
      const m = /^\{(.*)\}(.*)$/.exec(k)!;
      found.push(emptyTag(m[1]!, m[2]!));
    }
  } else {
    const asked = req.mode === 'allprop' ? [...ALLPROP.map((name) => ({ ns: DAV, name })), ...(req.names ?? [])] : req.names!;
    const seen = new Set<string>();
    for (const { ns, name } of asked) {
      const k = propKey(ns, name);
      if (seen.has(k)) continue;
      seen.add(k);
      const v = liveValue(ns, name);
      if (v !== undefined) found.push(liveTag(name, v));
      else if (dead[k] !== undefined) found.push(dead[k]);
      else if (req.mode === 'prop') missing.push(emptyTag(ns, name));
    }
    if (req.mode === 'allprop') for (const [k, v] of Object.entries(dead)) if (!seen.has(k)) found.push(v);
  }
  let out = `<D:response><D:href>${esc(href)}</D:href>`;
  if (found.length) out += `<D:propstat><D:prop>${found.join('')}</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>`;
  if (missing.length) out += `<D:propstat><D:prop>${missing.join('')}</D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat>`;
  if (!found.length && !missing.length) out += `<D:propstat><D:prop/><D:status>HTTP/1.1 200 OK</D:status></D:propstat>`;
  return `${out}</D:response>`;
}

export async function proppatch(ctx: Ctx): Promise<void> {
  const t = await targetOfCtx(ctx, 'write');
  const s = await statOf(t);
  if (!s) throw new Answer(404);
  const tokens = await evaluateIf(ctx, t);
  checkLocks(ctx, tokens, locksFor(ctx.site, t, {}));
  const body = await readBody(ctx.req, MAX_XML, ctx.site.counters);
  const root = davBody(body, 'propertyupdate');
  const props = { ...ctx.site.d.props.get(t.grant.storage, t.rp.path) };
  const results: Array<{ tag: string; status: number }> = [];
  const emptyTag = (e: XmlElement) => (e.ns === DAV ? `<D:${e.name}/>` : e.ns ? `<R:${e.name} xmlns:R="${esc(e.ns)}"/>` : `<${e.name} xmlns=""/>`);
  // Instructions apply in document order, all or nothing (RFC 4918 §9.2).
  for (const op of elements(root)) {
    if (op.ns !== DAV || (op.name !== 'set' && op.name !== 'remove')) continue;
    const prop = child(op, DAV, 'prop');
    if (!prop) throw new Answer(400);
    for (const p of elements(prop)) {
      if (p.ns === DAV) {
        // Live properties are the server's; none can be set or removed.
        results.push({ tag: emptyTag(p), status: 403 });
        continue;
      }
      const k = propKey(p.ns, p.name);
      if (op.name === 'set') props[k] = serialise(p);
      else delete props[k];
      results.push({ tag: emptyTag(p), status: 200 });
    }
  }
  const failed = results.some((r) => r.status !== 200);
  if (!failed) await ctx.site.d.props.set(t.grant.storage, t.rp.path, props);
  const text: Record<number, string> = { 200: 'OK', 403: 'Forbidden', 424: 'Failed Dependency' };
  const parts = results.map((r) => {
    const st = failed && r.status === 200 ? 424 : r.status;
    return `<D:propstat><D:prop>${r.tag}</D:prop><D:status>HTTP/1.1 ${st} ${text[st]}</D:status></D:propstat>`;
  });
  multistatus(ctx.res, [`<D:response><D:href>${esc(t.href(s.isDirectory()))}</D:href>${parts.join('')}</D:response>`]);
}
