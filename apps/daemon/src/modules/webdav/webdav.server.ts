/**
 * The WebDAV server of one rule (RFC 4918 class 1 and 2) on node:http: one request handler that
 * authenticates, places the URL in a mount, asks the storages service to resolve and permit every
 * path (the request's and the Destination's), then runs the method. No framework: every decision
 * about a path is the storages service's, and the rest is what litmus and real clients need.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, type Stats } from 'node:fs';
import { cp, lstat, mkdir, open, readdir, rename, rm, stat, statfs, unlink, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename, dirname, join } from 'node:path';
import type { Msg, WebdavRule } from '@lucky/contracts';
import { STORAGE_TEMP_PREFIX, type ReadResult, type ResolvedPath, type StorageGrant, type StorageOp, type StoragePrincipal, type StoragesService, type WriteResult } from '../../core/services/storages.js';
import { bypassedBytes, sendFileBody } from '../../core/filebody.js';
import { contentTypeOf, parseRange } from '../../lib/http/files.js';
import { MsgError } from '../../lib/msgerror.js';
import { isUnder, LockTable, parseIf, parseTimeout, type DavLock, type IfList } from './webdav.locks.js';
import { encodePath, hrefOf, locate, rawPath, type Mount } from './webdav.paths.js';
import { DeadProps, propKey, type PropMap } from './webdav.props.js';
import { child, DAV, elements, esc, parseXml, serialise, XmlError, type XmlElement } from './webdav.xml.js';

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

/** An answer decided before the method ran to the end. */
class Answer extends Error {
  constructor(
    readonly status: number,
    /** A DAV:error precondition element name (`propfind-finite-depth`...), sent as the body. */
    readonly condition?: string,
  ) {
    super(String(status));
  }
}

/** A resolved place inside a storage, with the keys locks and dead properties use. */
interface Target {
  mount: Mount;
  grant: StorageGrant;
  rp: ResolvedPath;
  /** Lock key: storage and path, so that locks follow the storage whichever URL names it. */
  key: string;
  href(collection: boolean): string;
}

const MAX_XML = 1 << 20;
/** Files up to this size are read whole in the storages' one-step read and sent in one write. */
const SMALL_FILE = 64 * 1024;
const ALLOW = 'OPTIONS, GET, HEAD, PUT, DELETE, PROPFIND, PROPPATCH, MKCOL, COPY, MOVE, LOCK, UNLOCK';


/** What a validator is made of: a stat, or the storages' read result. */
type Meta = Pick<Stats, 'ino' | 'size' | 'mtimeMs'>;

export function etagOf(s: Meta): string {
  return `"${s.ino.toString(16)}-${s.size.toString(16)}-${Math.floor(s.mtimeMs * 1000).toString(16)}"`;
}

/** A header as one string (Node gives arrays for a few repeated ones). */
const hdr = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
};
/** The Depth header of a PROPFIND; absent means infinity (RFC 4918 §9.1). */
function depthOf(h: string | undefined): { depth: string; noroot: boolean } {
  const parts = (h ?? 'infinity').toLowerCase().split(',').map((x) => x.trim());
  return { depth: parts[0]!, noroot: parts.includes('noroot') };
}

/** What a filesystem error means to a client. */
function statusOfFsError(err: unknown): number {
  switch ((err as NodeJS.ErrnoException | null)?.code) {
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return 403;
    case 'ENOENT':
      return 404;
    case 'ENOTDIR':
    case 'EEXIST':
      return 409;
    case 'ENOSPC':
    case 'EDQUOT':
      return 507;
    case 'EISDIR':
      return 405;
    case 'ENAMETOOLONG':
      return 414;
    default:
      return 500;
  }
}

const lockKey = (storage: string, path: string) => `${storage}\u0000${path}`;
const parentPath = (p: string) => (p === '/' ? '/' : p.slice(0, p.lastIndexOf('/')) || '/');

/** Bytes read from each request, for its access log line. */
const received = new WeakMap<IncomingMessage, number>();

/** Requests that sent `Expect: 100-continue` and wait for our go-ahead before their body. */
const awaiting = new WeakMap<IncomingMessage, ServerResponse>();

/** The body is wanted now: a client that asked first is told to send it. */
function goAhead(req: IncomingMessage): void {
  const res = awaiting.get(req);
  if (!res) return;
  awaiting.delete(req);
  res.writeContinue();
}

async function readBody(req: IncomingMessage, limit: number, counters: DavCounters): Promise<string> {
  return (await readBytes(req, limit, counters)).toString('utf8');
}

async function readBytes(req: IncomingMessage, limit: number, counters: DavCounters): Promise<Buffer> {
  goAhead(req);
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    n += c.length;
    counters.bytesIn += c.length;
    received.set(req, n);
    if (n > limit) throw new Answer(413);
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}

async function treeSize(real: string): Promise<number> {
  const s = await lstat(real);
  if (!s.isDirectory()) return s.size;
  let total = 0;
  for (const e of await readdir(real)) total += await treeSize(join(real, e));
  return total;
}

export class DavServer {
  readonly counters: DavCounters = { requests: 0, bytesIn: 0, bytesOut: 0, denied: 0 };
  private rule: WebdavRule;

  constructor(
    rule: WebdavRule,
    private readonly d: DavDeps,
  ) {
    this.rule = rule;
  }

  update(rule: WebdavRule): void {
    this.rule = rule;
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
    const grant = this.d.storages.grant(who, place.mount.storage);
    if (!grant) throw new Answer(place.mount.name === '' ? 403 : 404);
    const ctx = { who, req, res, mount: place.mount, grant, inner: place.inner };
    switch (method) {
      case 'GET':
      case 'HEAD':
        return this.get(ctx, method === 'HEAD');
      case 'PUT':
        return this.put(ctx);
      case 'DELETE':
        return this.delete(ctx);
      case 'MKCOL':
        return this.mkcol(ctx);
      case 'PROPFIND':
        return this.propfind(ctx);
      case 'PROPPATCH':
        return this.proppatch(ctx);
      case 'COPY':
      case 'MOVE':
        return this.copyMove(ctx, method === 'MOVE');
      case 'LOCK':
        return this.lock(ctx);
      case 'UNLOCK':
        return this.unlock(ctx);
      default:
        res.writeHead(405, { allow: ALLOW, 'content-length': 0 });
        res.end();
    }
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

  // ------------------------------------------------------------------ places

  private async target(mount: Mount, grant: StorageGrant, inner: string, op: StorageOp): Promise<Target> {
    let rp: ResolvedPath;
    try {
      rp = await this.d.storages.resolve(grant, inner, op);
    } catch {
      // Out of the root, a bad name, or not permitted: the storages service said no.
      throw new Answer(403);
    }
    const prefix = this.rule.prefix;
    return { mount, grant, rp, key: lockKey(grant.storage, rp.path), href: (c) => hrefOf(prefix, this.rule.mounts.length === 1 && mount.name === '' ? null : mount, rp.path, c) };
  }

  private async statOf(t: Target): Promise<Stats | null> {
    if (!t.rp.exists) return null;
    try {
      return await stat(t.rp.real);
    } catch {
      return null;
    }
  }

  /** The Destination header as a place we serve, resolved for writing. */
  private async destination(ctx: Ctx): Promise<Target> {
    const h = hdr(ctx.req, 'destination');
    if (!h) throw new Answer(400);
    const place = locate(rawPath(h), this.rule.prefix, this.rule.mounts);
    if (place.kind === 'bad') throw new Answer(400);
    if (place.kind === 'none') throw new Answer(502);
    if (place.kind === 'root') throw new Answer(403);
    const grant = this.d.storages.grant(ctx.who, place.mount.storage);
    if (!grant) throw new Answer(403);
    return this.target(place.mount, grant, place.inner, 'write');
  }

  // ------------------------------------------------------------------ conditions and locks

  /**
   * The If header (RFC 4918 §10.4) evaluated against current locks and ETags: 412 when no list
   * holds. Returns the lock tokens it submitted, which writes to locked resources must include.
   */
  private async evaluateIf(ctx: Ctx, self: Target): Promise<Set<string>> {
    const h = ctx.req.headers.if;
    const tokens = new Set<string>();
    if (h === undefined) return tokens;
    const lists = parseIf(String(h));
    if (!lists) throw new Answer(400);
    let any = false;
    for (const list of lists) {
      for (const c of list.conditions) if (c.kind === 'token') tokens.add(c.value);
      if (!any && (await this.listHolds(ctx, self, list))) any = true;
    }
    if (!any) throw new Answer(412);
    return tokens;
  }

  private async listHolds(ctx: Ctx, self: Target, list: IfList): Promise<boolean> {
    let t: Target | null = self;
    if (list.tag !== undefined) {
      const place = locate(rawPath(list.tag), this.rule.prefix, this.rule.mounts);
      if (place.kind !== 'mount') return false;
      const grant = this.d.storages.grant(ctx.who, place.mount.storage);
      if (!grant) return false;
      t = await this.target(place.mount, grant, place.inner, 'read').catch(() => null);
      if (!t) return false;
    }
    const s = await this.statOf(t);
    const covering = this.d.locks.covering(t.key);
    for (const c of list.conditions) {
      let ok: boolean;
      if (c.kind === 'etag') ok = !!s && c.value.replace(/^W\//, '') === etagOf(s);
      else ok = covering.some((l) => l.token === c.value);
      if (ok === c.not) return false;
    }
    return true;
  }

  /** 423 when a lock held by someone (or under a token not submitted) stands in the way. */
  private checkLocks(ctx: Ctx, tokens: Set<string>, locks: DavLock[]): void {
    const mine = (l: DavLock) => tokens.has(l.token) && l.principal === ctx.who.account;
    for (const l of locks) {
      if (mine(l)) continue;
      // Shared locks: submitting any one of the shared tokens is enough.
      if (l.scope === 'shared' && locks.some((o) => o.scope === 'shared' && o.root === l.root && mine(o))) continue;
      throw new Answer(423, 'lock-token-submitted');
    }
  }

  /** The locks a change to `t` meets: on it (and, for a whole tree, below it), and on its parent's membership. */
  private locksFor(t: Target, opts: { tree?: boolean; membership?: boolean }): DavLock[] {
    const set = new Map<string, DavLock>();
    for (const l of this.d.locks.covering(t.key)) set.set(l.token, l);
    if (opts.tree) for (const l of this.d.locks.within(t.key)) set.set(l.token, l);
    if (opts.membership && t.rp.path !== '/') for (const l of this.d.locks.covering(lockKey(t.grant.storage, parentPath(t.rp.path)))) set.set(l.token, l);
    return [...set.values()];
  }

  private checkPreconditions(req: IncomingMessage, s: Meta | null): void {
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

  // ------------------------------------------------------------------ methods

  private async get(ctx: Ctx, head: boolean): Promise<void> {
    let s: ReadResult | null;
    try {
      s = await this.d.storages.read(ctx.grant, ctx.inner, head ? 0 : SMALL_FILE);
    } catch {
      // Out of the root, a bad name, or not permitted: the storages service said no.
      throw new Answer(403);
    }
    // A FIFO or a device is nobody's download.
    if (!s || s.kind === 'other') throw new Answer(404);
    this.checkPreconditions(ctx.req, s);
    const ims = ctx.req.headers['if-modified-since'];
    if (ims && ctx.req.headers['if-none-match'] === undefined && Math.floor(s.mtimeMs / 1000) <= Math.floor(Date.parse(ims) / 1000)) throw new Answer(304);
    const common = { etag: etagOf(s), 'last-modified': new Date(s.mtimeMs).toUTCString(), 'accept-ranges': 'bytes' };
    if (s.kind === 'dir') {
      const t = await this.target(ctx.mount, ctx.grant, ctx.inner, 'read');
      const names = (await readdir(t.rp.real, { withFileTypes: true })).filter((e) => !e.name.startsWith(STORAGE_TEMP_PREFIX));
      const base = t.href(true);
      const body = `<!doctype html><meta charset="utf-8"><ul>${names.map((e) => `<li><a href="${esc(base + encodePath(e.name) + (e.isDirectory() ? '/' : ''))}">${esc(e.name)}</a></li>`).join('')}</ul>\n`;
      ctx.res.writeHead(200, { ...common, 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      ctx.res.end(head ? undefined : body);
      return;
    }
    let start = 0;
    let last = s.size - 1;
    let status = 200;
    const range = ctx.req.headers.range;
    const ifRange = ctx.req.headers['if-range'];
    if (range && (!ifRange || ifRange === common.etag)) {
      const r = parseRange(range, s.size);
      if (r === 'bad') {
        ctx.res.writeHead(416, { 'content-range': `bytes */${s.size}`, 'content-length': 0 });
        ctx.res.end();
        return;
      }
      if (r) {
        start = r.start;
        last = r.end;
        status = 206;
      }
    }
    const headers: Record<string, string | number> = { ...common, 'content-type': contentTypeOf(s.path), 'content-length': s.size === 0 ? 0 : last - start + 1 };
    if (status === 206) headers['content-range'] = `bytes ${start}-${last}/${s.size}`;
    if (head || s.size === 0) {
      ctx.res.writeHead(status, headers);
      ctx.res.end();
      return;
    }
    if (s.data) {
      // Head and body in one write.
      ctx.res.writeHead(status, headers);
      ctx.res.end(s.data.subarray(start, last + 1));
      return;
    }
    const t = await this.target(ctx.mount, ctx.grant, ctx.inner, 'read');
    // Opened before the head: a file that cannot be read is still a status, not a cut connection.
    const file = await open(t.rp.real, 'r');
    ctx.res.writeHead(status, headers);
    await sendFileBody(ctx.req, ctx.res, file, start, last - start + 1, { native: this.d.nativeFiles ?? false });
  }

  /**
   * A small upload with nothing to check but the path: no conditions, no locks anywhere. It is
   * read whole and handed to the storages' one-step write, a tenth of the disk round trips of the
   * streamed way. Anything else goes the streamed way.
   */
  private async putSmall(ctx: Ctx): Promise<boolean> {
    const h = ctx.req.headers;
    const length = Number(h['content-length'] ?? NaN);
    if (!(length <= SMALL_FILE) || h['x-expected-entity-length'] !== undefined || h['content-range'] !== undefined) return false;
    if (h.if !== undefined || h['if-match'] !== undefined || h['if-none-match'] !== undefined || h['if-unmodified-since'] !== undefined) return false;
    if (!this.d.locks.empty) return false;
    let body: Buffer;
    try {
      body = await readBytes(ctx.req, length, this.counters);
    } catch {
      throw new Answer(400);
    }
    if (!ctx.req.complete) throw new Answer(400);
    let r: WriteResult;
    try {
      r = await this.d.storages.write(ctx.grant, ctx.inner, body);
    } catch (err) {
      const key = err instanceof MsgError ? err.msg.key : (err as NodeJS.ErrnoException).code;
      if (key === 'storageNoFolder') throw new Answer(409);
      if (key === 'storageIsFolder') throw new Answer(405);
      if (key === 'storageQuotaFull' || key === 'ENOSPC' || key === 'EDQUOT') throw new Answer(507);
      throw new Answer(403);
    }
    ctx.res.writeHead(r.created ? 201 : 204, { etag: etagOf(r), 'last-modified': new Date(r.mtimeMs).toUTCString(), 'content-length': 0 });
    ctx.res.end();
    return true;
  }

  private async put(ctx: Ctx): Promise<void> {
    if (await this.putSmall(ctx)) return;
    const t = await this.target(ctx.mount, ctx.grant, ctx.inner, 'write');
    if (t.rp.path === '/') throw new Answer(405);
    const s = await this.statOf(t);
    if (s?.isDirectory()) throw new Answer(405);
    const tokens = await this.evaluateIf(ctx, t);
    this.checkPreconditions(ctx.req, s);
    this.checkLocks(ctx, tokens, this.locksFor(t, { membership: !s }));
    if (ctx.req.headers['content-range']) throw new Answer(400);
    const dir = dirname(t.rp.real);
    const ps = await stat(dir).catch(() => null);
    if (!ps?.isDirectory()) throw new Answer(409);
    const room = await this.d.storages.room(t.grant);
    // macOS Finder sends its uploads chunked and says their size in X-Expected-Entity-Length.
    const declared = Number(ctx.req.headers['x-expected-entity-length'] ?? ctx.req.headers['content-length'] ?? NaN);
    // An overwrite frees the old file's bytes.
    const budget = room + (s?.size ?? 0);
    if (Number.isFinite(declared) && declared > budget) throw new Answer(507);
    // Streamed into a temporary file beside the target and renamed at the end, so a broken
    // upload never leaves a half file under the real name and memory stays flat.
    const tmp = join(dir, `${STORAGE_TEMP_PREFIX}${randomBytes(6).toString('hex')}`);
    goAhead(ctx.req);
    let written = 0;
    try {
      await new Promise<void>((resolve, reject) => {
        const ws = createWriteStream(tmp, { flags: 'wx' });
        // Rejected only once the file is closed: a stream destroyed while still opening creates
        // the file afterwards, and the unlink below must come after that.
        let failed = false;
        const fail = (e: unknown) => {
          if (failed) return;
          failed = true;
          ctx.req.unpipe(ws);
          if (ws.closed) return reject(e);
          ws.once('close', () => reject(e));
          ws.destroy();
        };
        ctx.req.on('data', (c: Buffer) => {
          written += c.length;
          this.counters.bytesIn += c.length;
          received.set(ctx.req, written);
          if (written > budget) fail(new Answer(507));
        });
        ctx.req.on('aborted', () => fail(new Answer(400)));
        ctx.req.on('error', fail);
        ws.on('error', (e: NodeJS.ErrnoException) => fail(e.code === 'ENOSPC' || e.code === 'EDQUOT' ? new Answer(507) : e));
        ws.on('finish', () => (ctx.req.complete ? resolve() : reject(new Answer(400))));
        ctx.req.pipe(ws);
      });
      await rename(tmp, t.rp.real);
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
    const now = await stat(t.rp.real);
    ctx.res.writeHead(s ? 204 : 201, { etag: etagOf(now), 'last-modified': now.mtime.toUTCString(), 'content-length': 0 });
    ctx.res.end();
  }

  private async delete(ctx: Ctx): Promise<void> {
    const t = await this.target(ctx.mount, ctx.grant, ctx.inner, 'delete');
    if (t.rp.path === '/') throw new Answer(403);
    const s = await lstat(t.rp.real).catch(() => null);
    if (!s) throw new Answer(404);
    const depth = hdr(ctx.req, 'depth');
    if (s.isDirectory() && depth !== undefined && depth.toLowerCase() !== 'infinity') throw new Answer(400);
    const tokens = await this.evaluateIf(ctx, t);
    this.checkPreconditions(ctx.req, s);
    this.checkLocks(ctx, tokens, this.locksFor(t, { tree: true, membership: true }));
    await rm(t.rp.real, { recursive: true, force: true });
    this.d.locks.dropWithin(t.key);
    await this.d.props.remove(t.grant.storage, t.rp.path);
    ctx.res.writeHead(204, { 'content-length': 0 });
    ctx.res.end();
  }

  private async mkcol(ctx: Ctx): Promise<void> {
    const t = await this.target(ctx.mount, ctx.grant, ctx.inner, 'write');
    const body = await readBody(ctx.req, MAX_XML, this.counters);
    if (body.length > 0) throw new Answer(415);
    if (t.rp.exists) throw new Answer(405);
    const tokens = await this.evaluateIf(ctx, t);
    this.checkLocks(ctx, tokens, this.locksFor(t, { membership: true }));
    try {
      await mkdir(t.rp.real);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') throw new Answer(409);
      if (code === 'EEXIST') throw new Answer(405);
      throw err;
    }
    ctx.res.writeHead(201, { 'content-length': 0 });
    ctx.res.end();
  }

  private async copyMove(ctx: Ctx, move: boolean): Promise<void> {
    const src = await this.target(ctx.mount, ctx.grant, ctx.inner, move ? 'delete' : 'read');
    if (move && src.rp.path === '/') throw new Answer(403);
    const dst = await this.destination(ctx);
    const s = await lstat(src.rp.real).catch(() => null);
    if (!s) throw new Answer(404);
    if (dst.rp.path === '/') throw new Answer(403);
    const depthH = (hdr(ctx.req, 'depth') ?? 'infinity').toLowerCase();
    if (depthH !== 'infinity' && (move || depthH !== '0')) throw new Answer(400);
    if (src.grant.storage === dst.grant.storage && isUnder(dst.rp.path, src.rp.path)) throw new Answer(403);
    const overwrite = (hdr(ctx.req, 'overwrite') ?? 'T').toUpperCase() !== 'F';
    const tokens = await this.evaluateIf(ctx, src);
    if (move) this.checkLocks(ctx, tokens, this.locksFor(src, { tree: true, membership: true }));
    const ds = await lstat(dst.rp.real).catch(() => null);
    if (ds && !overwrite) throw new Answer(412);
    this.checkLocks(ctx, tokens, this.locksFor(dst, { tree: true, membership: true }));
    const pd = await stat(dirname(dst.rp.real)).catch(() => null);
    if (!pd?.isDirectory()) throw new Answer(409);
    const sameStorage = src.grant.storage === dst.grant.storage;
    if (!move || !sameStorage) {
      const need = s.isDirectory() && depthH === '0' ? 0 : await treeSize(src.rp.real);
      if (need > (await this.d.storages.room(dst.grant)) + (ds ? await treeSize(dst.rp.real) : 0)) throw new Answer(507);
    }
    if (ds) {
      await rm(dst.rp.real, { recursive: true, force: true });
      this.d.locks.dropWithin(dst.key);
    }
    if (move) {
      try {
        await rename(src.rp.real, dst.rp.real);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
        // Another filesystem: copy, then remove the original.
        await cp(src.rp.real, dst.rp.real, { recursive: true, errorOnExist: true, force: false });
        await rm(src.rp.real, { recursive: true, force: true });
      }
      this.d.locks.dropWithin(src.key);
    } else if (s.isDirectory() && depthH === '0') {
      await mkdir(dst.rp.real);
    } else {
      await cp(src.rp.real, dst.rp.real, { recursive: true, errorOnExist: true, force: false, preserveTimestamps: false });
    }
    await this.d.props.transfer({ storage: src.grant.storage, path: src.rp.path }, { storage: dst.grant.storage, path: dst.rp.path }, move);
    ctx.res.writeHead(ds ? 204 : 201, { 'content-length': 0 });
    ctx.res.end();
  }

  // ------------------------------------------------------------------ properties

  private async quota(grant: StorageGrant): Promise<{ available: number; used: number }> {
    const fs = await statfs(grant.root);
    const fsAvail = fs.bavail * fs.bsize;
    const room = await this.d.storages.room(grant);
    if (grant.quota !== null && Number.isFinite(room)) return { available: Math.max(0, Math.min(room, fsAvail)), used: Math.max(0, grant.quota - room) };
    return { available: fsAvail, used: (fs.blocks - fs.bfree) * fs.bsize };
  }

  /** The live properties of a resource, by name in DAV:, as XML text of their values. */
  private live(t: Target | null, s: Stats, name: string, displayName: string): string | undefined {
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
        return t ? this.d.locks.covering(t.key).map((l) => this.activeLock(l)).join('') : '';
      default:
        return undefined;
    }
  }

  private activeLock(l: DavLock): string {
    return (
      `<D:activelock><D:locktype><D:write/></D:locktype><D:lockscope><D:${l.scope}/></D:lockscope><D:depth>${l.depth === '0' ? '0' : 'infinity'}</D:depth>` +
      `${l.owner ? `<D:owner>${l.owner}</D:owner>` : ''}<D:timeout>Second-${Math.max(0, Math.round((l.expires - Date.now()) / 1000))}</D:timeout>` +
      `<D:locktoken><D:href>${esc(l.token)}</D:href></D:locktoken><D:lockroot><D:href>${esc(l.rootHref)}</D:href></D:lockroot></D:activelock>`
    );
  }

  private static ALLPROP = ['resourcetype', 'getlastmodified', 'creationdate', 'getetag', 'displayname', 'getcontentlength', 'getcontenttype', 'supportedlock', 'lockdiscovery'];

  private async propfind(ctx: Ctx): Promise<void> {
    const t = await this.target(ctx.mount, ctx.grant, ctx.inner, 'read');
    const { depth, noroot } = depthOf(hdr(ctx.req, 'depth'));
    if (depth !== '0' && depth !== '1') throw new Answer(403, 'propfind-finite-depth');
    const req = await this.propRequest(ctx.req);
    const s = await this.statOf(t);
    if (!s) throw new Answer(404);
    const quota = req.names?.some((n) => n.ns === DAV && /^quota-(available|used)-bytes$/.test(n.name)) ? await this.quota(t.grant) : null;
    const parts = noroot && depth === '1' ? [] : [this.propResponse(t.href(s.isDirectory()), t, s, req, quota, t.grant.storage, t.rp.path, basename(t.rp.path) || ctx.mount.name || '/')];
    if (depth === '1' && s.isDirectory()) {
      for (const e of await readdir(t.rp.real, { withFileTypes: true })) {
        if (e.name.startsWith(STORAGE_TEMP_PREFIX)) continue;
        const innerPath = t.rp.path === '/' ? `/${e.name}` : `${t.rp.path}/${e.name}`;
        let real = join(t.rp.real, e.name);
        // A symlink is listed only when the storages service lets it resolve inside the root.
        if (e.isSymbolicLink()) {
          const c = await this.d.storages.resolve(t.grant, innerPath, 'read').catch(() => null);
          if (!c?.exists) continue;
          real = c.real;
        }
        const cs = await stat(real).catch(() => null);
        if (!cs) continue;
        const ct: Target = { ...t, rp: { ...t.rp, path: innerPath, real, exists: true }, key: lockKey(t.grant.storage, innerPath), href: (c) => hrefOf(this.rule.prefix, this.rule.mounts.length === 1 && ctx.mount.name === '' ? null : ctx.mount, innerPath, c) };
        parts.push(this.propResponse(ct.href(cs.isDirectory()), ct, cs, req, quota, t.grant.storage, innerPath, e.name));
      }
    }
    this.multistatus(ctx.res, parts);
  }

  /** What a PROPFIND body asks: named properties, their names only, or all (with includes). */
  private async propRequest(req: IncomingMessage): Promise<{ mode: 'prop' | 'propname' | 'allprop'; names?: Array<{ ns: string; name: string }> }> {
    const body = await readBody(req, MAX_XML, this.counters);
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

  private propResponse(
    href: string,
    t: Target | null,
    s: Stats,
    req: { mode: string; names?: Array<{ ns: string; name: string }> },
    quota: { available: number; used: number } | null,
    storage: string | null,
    path: string,
    display: string,
  ): string {
    const dead: PropMap = storage ? this.d.props.get(storage, path) : {};
    const found: string[] = [];
    const missing: string[] = [];
    const liveValue = (ns: string, name: string): string | undefined => {
      if (ns !== DAV) return undefined;
      if (name === 'quota-available-bytes' && quota && s.isDirectory()) return String(quota.available);
      if (name === 'quota-used-bytes' && quota && s.isDirectory()) return String(quota.used);
      return this.live(t, s, name, display);
    };
    const emptyTag = (ns: string, name: string) => (ns === DAV ? `<D:${name}/>` : ns ? `<R:${name} xmlns:R="${esc(ns)}"/>` : `<${name} xmlns=""/>`);
    const liveTag = (name: string, v: string) => (v === '' ? `<D:${name}/>` : `<D:${name}>${v}</D:${name}>`);
    if (req.mode === 'propname') {
      for (const n of DavServer.ALLPROP) if (this.live(t, s, n, display) !== undefined) found.push(`<D:${n}/>`);
      for (const k of Object.keys(dead)) {
        const m = /^\{(.*)\}(.*)$/.exec(k)!;
        found.push(emptyTag(m[1]!, m[2]!));
      }
    } else {
      const asked = req.mode === 'allprop' ? [...DavServer.ALLPROP.map((name) => ({ ns: DAV, name })), ...(req.names ?? [])] : req.names!;
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

  private multistatus(res: ServerResponse, parts: string[]): void {
    const body = `<?xml version="1.0" encoding="utf-8"?>\n<D:multistatus xmlns:D="DAV:">${parts.join('')}</D:multistatus>\n`;
    res.writeHead(207, { 'content-type': 'application/xml; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }

  private async proppatch(ctx: Ctx): Promise<void> {
    const t = await this.target(ctx.mount, ctx.grant, ctx.inner, 'write');
    const s = await this.statOf(t);
    if (!s) throw new Answer(404);
    const tokens = await this.evaluateIf(ctx, t);
    this.checkLocks(ctx, tokens, this.locksFor(t, {}));
    const body = await readBody(ctx.req, MAX_XML, this.counters);
    const root = davBody(body, 'propertyupdate');
    const props = { ...this.d.props.get(t.grant.storage, t.rp.path) };
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
    if (!failed) await this.d.props.set(t.grant.storage, t.rp.path, props);
    const text: Record<number, string> = { 200: 'OK', 403: 'Forbidden', 424: 'Failed Dependency' };
    const parts = results.map((r) => {
      const st = failed && r.status === 200 ? 424 : r.status;
      return `<D:propstat><D:prop>${r.tag}</D:prop><D:status>HTTP/1.1 ${st} ${text[st]}</D:status></D:propstat>`;
    });
    this.multistatus(ctx.res, [`<D:response><D:href>${esc(t.href(s.isDirectory()))}</D:href>${parts.join('')}</D:response>`]);
  }

  // ------------------------------------------------------------------ locks

  private async lock(ctx: Ctx): Promise<void> {
    const t = await this.target(ctx.mount, ctx.grant, ctx.inner, 'write');
    const body = await readBody(ctx.req, MAX_XML, this.counters);
    const timeout = parseTimeout(hdr(ctx.req, 'timeout'), this.rule.lockTimeout);
    if (!body.trim()) {
      // A refresh: the If header names the lock.
      const h = ctx.req.headers.if;
      const lists = h ? parseIf(String(h)) : null;
      if (!lists) throw new Answer(400);
      const covering = this.d.locks.covering(t.key);
      const lock = covering.find((l) => lists.some((li) => li.conditions.some((c) => c.kind === 'token' && !c.not && c.value === l.token)));
      if (!lock || lock.principal !== ctx.who.account) throw new Answer(412, 'lock-token-matches-request-uri');
      this.d.locks.refresh(lock, timeout);
      return this.lockAnswer(ctx.res, 200, lock, false);
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
    const tokens = await this.evaluateIf(ctx, t);
    let created = false;
    if (!t.rp.exists) {
      // Locking an unmapped URL creates an empty resource (RFC 4918 §7.3; no lock-null resources).
      this.checkLocks(ctx, tokens, this.locksFor(t, { membership: true }));
      try {
        await writeFile(t.rp.real, '', { flag: 'wx' });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new Answer(409);
        throw err;
      }
      created = true;
    }
    const lock = this.d.locks.create({ root: t.key, rootHref: t.href(false), scope, depth: depthH === '0' ? '0' : 'infinity', owner, principal: ctx.who.account, timeoutSec: timeout });
    if (!lock) throw new Answer(423, 'no-conflicting-lock');
    if (created) {
      const s = await this.statOf(t);
      if (s?.isDirectory()) lock.rootHref = t.href(true);
    } else if ((await this.statOf(t))?.isDirectory()) lock.rootHref = t.href(true);
    this.lockAnswer(ctx.res, created ? 201 : 200, lock, true);
  }

  private lockAnswer(res: ServerResponse, status: number, lock: DavLock, withHeader: boolean): void {
    const body = `<?xml version="1.0" encoding="utf-8"?>\n<D:prop xmlns:D="DAV:"><D:lockdiscovery>${this.activeLock(lock)}</D:lockdiscovery></D:prop>\n`;
    res.writeHead(status, {
      'content-type': 'application/xml; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      ...(withHeader ? { 'lock-token': `<${lock.token}>` } : {}),
    });
    res.end(body);
  }

  private async unlock(ctx: Ctx): Promise<void> {
    const t = await this.target(ctx.mount, ctx.grant, ctx.inner, 'write');
    const h = ctx.req.headers['lock-token'];
    const m = h ? /^\s*<([^>]+)>\s*$/.exec(String(h)) : null;
    if (!m) throw new Answer(400);
    const lock = this.d.locks.covering(t.key).find((l) => l.token === m[1]);
    if (!lock) throw new Answer(409, 'lock-token-matches-request-uri');
    if (lock.principal !== ctx.who.account) throw new Answer(403);
    this.d.locks.remove(lock.token);
    ctx.res.writeHead(204, { 'content-length': 0 });
    ctx.res.end();
  }

  // ------------------------------------------------------------------ the top level of several mounts

  private async virtualRoot(method: string, who: StoragePrincipal, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const visible = this.rule.mounts.map((m) => ({ m, g: this.d.storages.grant(who, m.storage) })).filter((x): x is { m: Mount; g: StorageGrant } => x.g !== null);
    if (method === 'PROPFIND') {
      const { depth, noroot } = depthOf(hdr(req, 'depth'));
      if (depth !== '0' && depth !== '1') throw new Answer(403, 'propfind-finite-depth');
      const pr = await this.propRequest(req);
      const rootStat = { isDirectory: () => true, mtime: new Date(0), mtimeMs: 0, birthtimeMs: 0, ctimeMs: 0, ino: 0, size: 0 } as unknown as Stats;
      const parts = noroot && depth === '1' ? [] : [this.propResponse(hrefOf(this.rule.prefix, null, '/', true), null, rootStat, pr, null, null, '/', '/')];
      if (depth === '1')
        for (const { m, g } of visible) {
          const s = await stat(g.root).catch(() => null);
          if (!s) continue;
          const q = pr.names?.some((n) => n.ns === DAV && /^quota-/.test(n.name)) ? await this.quota(g) : null;
          parts.push(this.propResponse(hrefOf(this.rule.prefix, m, '/', true), null, s, pr, q, g.storage, '/', m.name));
        }
      return this.multistatus(res, parts);
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

interface Ctx {
  who: StoragePrincipal;
  req: IncomingMessage;
  res: ServerResponse;
  mount: Mount;
  grant: StorageGrant;
  inner: string;
}

/** A request body that must be one DAV element: its root, or 400 (bad XML, or another element). */
function davBody(body: string, name: string): XmlElement {
  let root: XmlElement;
  try {
    root = parseXml(body);
  } catch (err) {
    if (err instanceof XmlError) throw new Answer(400);
    throw err;
  }
  if (root.ns !== DAV || root.name !== name) throw new Answer(400);
  return root;
}
