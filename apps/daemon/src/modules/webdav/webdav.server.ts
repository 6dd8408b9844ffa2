/**
 * The WebDAV server of one rule (RFC 4918 class 1 and 2) on node:http: one request handler that
 * authenticates, places the URL in a mount, asks the storages service to resolve and permit every
 * path (the request's and the Destination's), then runs the method. No framework: every decision
 * about a path is the storages service's, and the rest is what litmus and real clients need.
 * The methods are in webdav.content.ts (GET, PUT), webdav.tree.ts (DELETE, MKCOL, COPY, MOVE),
 * webdav.properties.ts (PROPFIND, PROPPATCH) and webdav.lockmethods.ts (LOCK, UNLOCK).
 */
import { stat } from 'node:fs/promises';
import { FOLDER_STAT } from './webdav.files.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebdavRule } from '@lucky/contracts';
import type { StorageGrant, StoragePrincipal } from '../../core/services/storages.js';
import { bypassedBytes } from '../../core/filebody.js';
import { get, put } from './webdav.content.js';
import { lockResource, unlockResource } from './webdav.lockmethods.js';
import { hrefOf, locate, rawPath, type Mount } from './webdav.paths.js';
import { propfind, propRequest, propResponse, proppatch, quotaOf } from './webdav.properties.js';
import { ALLOW, Answer, awaiting, depthOf, hdr, multistatus, received, statusOfFsError } from './webdav.request.js';
import type { Ctx, DavCounters, DavDeps, DavSite } from './webdav.site.js';
import { copyMove, mkcol, remove } from './webdav.tree.js';
import { DAV, esc } from '../../lib/xml.js';

export type { AccessEntry, DavCounters, DavDeps } from './webdav.site.js';

/** The methods inside a mount, by name. */
const METHODS = new Map<string, (ctx: Ctx) => Promise<void>>([
  ['GET', (ctx) => get(ctx, false)],
  ['HEAD', (ctx) => get(ctx, true)],
  ['PUT', put],
  ['DELETE', remove],
  ['MKCOL', mkcol],
  ['PROPFIND', propfind],
  ['PROPPATCH', proppatch],
  ['COPY', (ctx) => copyMove(ctx, false)],
  ['MOVE', (ctx) => copyMove(ctx, true)],
  ['LOCK', lockResource],
  ['UNLOCK', unlockResource],
]);

export class DavServer implements DavSite {
  readonly counters: DavCounters = { requests: 0, bytesIn: 0, bytesOut: 0, denied: 0 };
  private current: WebdavRule;

  constructor(
    rule: WebdavRule,
    readonly d: DavDeps,
  ) {
    this.current = rule;
  }

  get rule(): WebdavRule {
    return this.current;
  }

  update(rule: WebdavRule): void {
    this.current = rule;
  }

  /** The storages this rule serves, for the storages service's "used by". */
  storagesServed(): string[] {
    return [...new Set(this.rule.mounts.map((m) => m.storage))];
  }

  /**
   * A request with `Expect: 100-continue` (curl's big uploads, Windows): it is checked (login,
   * path, permission, locks, quota) before the client sends the body, so a refused upload costs
   * no transfer.
   */
  handleContinue = (req: IncomingMessage, res: ServerResponse): void => {
    awaiting.set(req, res);
    this.handle(req, res);
  };

  handle = (req: IncomingMessage, res: ServerResponse): void => {
    this.counters.requests++;
    const method = (req.method ?? 'GET').toUpperCase();
    let user = '-';
    const raw = rawPath(req.url ?? '/');
    let sent = 0;
    const write = res.write.bind(res);
    const end = res.end.bind(res);
    // Bytes out as the client gets them, for the figures and the access log.
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (chunk && typeof (chunk as { length?: number }).length === 'number') sent += (chunk as { length: number }).length;
      return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof res.write;
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      if (chunk && typeof chunk !== 'function' && typeof (chunk as { length?: number }).length === 'number') sent += (chunk as { length: number }).length;
      return (end as (...a: unknown[]) => ServerResponse)(chunk, ...rest);
    }) as typeof res.end;
    res.on('finish', () => {
      sent += bypassedBytes(res);
      this.counters.bytesOut += sent;
      if (res.statusCode === 401 || res.statusCode === 403) this.counters.denied++;
      this.d.access({ user, method, path: raw.slice(0, 512), status: res.statusCode, bytes: sent + (received.get(req) ?? 0) });
    });
    this.run(method, raw, req, res, (u) => (user = u)).catch((err: unknown) => {
      const status = err instanceof Answer ? err.status : statusOfFsError(err);
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const body =
        err instanceof Answer && err.condition
          ? `<?xml version="1.0" encoding="utf-8"?>\n<D:error xmlns:D="DAV:"><D:${err.condition}/></D:error>`
          : '';
      // A client still holding its body back must not have the connection reused for the next request.
      if (awaiting.has(req)) res.shouldKeepAlive = false;
      res.writeHead(status, body ? { 'content-type': 'application/xml; charset=utf-8', 'content-length': Buffer.byteLength(body) } : { 'content-length': 0 });
      res.end(body);
      // The rest of an upload we refused is not read: close after the answer instead of draining it.
      if (!req.complete) req.resume();
    });
  };

  private async run(method: string, raw: string, req: IncomingMessage, res: ServerResponse, setUser: (u: string) => void): Promise<void> {
    const place = locate(raw, this.rule.prefix, this.rule.mounts);
    // Clients probe OPTIONS before they log in (Windows' mini-redirector on the server root); the
    // answer says only what the server can do, so it is given to anyone, anywhere.
    if (method === 'OPTIONS') return this.options(res);
    if (place.kind === 'bad') throw new Answer(400);
    const who = await this.authenticate(req, res);
    if (!who) return;
    setUser(who.kind === 'anonymous' ? '(anonymous)' : who.account);
    if (place.kind === 'none') throw new Answer(404);
    if (place.kind === 'root') return this.virtualRoot(method, who, req, res);
    const grant = this.d.storages.grant(who, place.mount.storage, { remote: true });
    // A remote that stopped answering (or a disk gone) is "try later", not "forbidden".
    if (!grant) throw new Answer(this.d.storages.down(place.mount.storage) ? 503 : place.mount.name === '' ? 403 : 404);
    const ctx: Ctx = { site: this, who, req, res, mount: place.mount, grant, inner: place.inner };
    const run = METHODS.get(method);
    if (run) return run(ctx);
    res.writeHead(405, { allow: ALLOW, 'content-length': 0 });
    res.end();
  }

  private options(res: ServerResponse): void {
    res.writeHead(200, { dav: '1, 2', allow: ALLOW, 'ms-author-via': 'DAV', 'accept-ranges': 'bytes', 'content-length': 0 });
    res.end();
  }

  // ------------------------------------------------------------------ login

  private async authenticate(req: IncomingMessage, res: ServerResponse): Promise<StoragePrincipal | null> {
    const h = req.headers.authorization;
    const challenge = () => {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="Lucky WebDAV", charset="UTF-8"', 'content-length': 0 });
      res.end();
      return null;
    };
    if (!h) return this.d.storages.anonymous() ?? challenge();
    const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(h);
    if (!m) return challenge();
    const pair = Buffer.from(m[1]!, 'base64').toString('utf8');
    const colon = pair.indexOf(':');
    if (colon < 1) return challenge();
    const account = pair.slice(0, colon);
    const password = pair.slice(colon + 1);
    // Every request logs in; the storages service takes a verified login on trust for a while.
    const ip = req.socket.remoteAddress ?? '';
    const who = await this.d.storages.login({ account, password, ip, service: 'webdav' });
    if (!who) {
      this.d.note({ key: 'webdavLoginFailed', vars: { client: ip, account: account.slice(0, 64) } });
      return challenge();
    }
    return who;
  }

  // ------------------------------------------------------------------ the top level of several mounts

  private async virtualRoot(method: string, who: StoragePrincipal, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const visible = this.rule.mounts.map((m) => ({ m, g: this.d.storages.grant(who, m.storage, { remote: true }) })).filter((x): x is { m: Mount; g: StorageGrant } => x.g !== null);
    if (method === 'PROPFIND') {
      const { depth, noroot } = depthOf(hdr(req, 'depth'));
      if (depth !== '0' && depth !== '1') throw new Answer(403, 'propfind-finite-depth');
      const pr = await propRequest(req, this.counters);
      const rootStat = FOLDER_STAT;
      const parts = noroot && depth === '1' ? [] : [propResponse(this, hrefOf(this.rule.prefix, null, '/', true), null, rootStat, pr, null, null, '/', '/')];
      if (depth === '1')
        for (const { m, g } of visible) {
          const s = g.remote ? FOLDER_STAT : await stat(g.root).catch(() => null);
          if (!s) continue;
          const q = pr.names?.some((n) => n.ns === DAV && /^quota-/.test(n.name)) ? await quotaOf(this, g) : null;
          parts.push(propResponse(this, hrefOf(this.rule.prefix, m, '/', true), null, s, pr, q, g.storage, '/', m.name));
        }
      return multistatus(res, parts);
    }
    if (method === 'GET' || method === 'HEAD') {
      const body = `<!doctype html><meta charset="utf-8"><ul>${visible.map(({ m }) => `<li><a href="${esc(hrefOf(this.rule.prefix, m, '/', true))}">${esc(m.name)}</a></li>`).join('')}</ul>\n`;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      res.end(method === 'HEAD' ? undefined : body);
      return;
    }
    // The top level is made of the mounts: nothing can be written, locked or removed there.
    throw new Answer(403);
  }
}
