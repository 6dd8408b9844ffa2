/**
 * The methods on a file's content: GET and HEAD (ranges, conditional requests, a folder as a page
 * of links), and PUT (a small upload in one step, a large one streamed into a temporary file
 * beside the target and renamed over it at the end).
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open, rename, stat, unlink } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { dirname, join } from 'node:path';
import { STORAGE_TEMP_PREFIX, type ReadResult, type WriteResult } from '../../core/services/storages.js';
import { sendFileBody } from '../../core/filebody.js';
import { sendRemoteRange } from '../../core/remotebody.js';
import { contentTypeOf, parseRange } from '../../lib/http/files.js';
import { MsgError } from '../../lib/msgerror.js';
import { checkLocks, checkPreconditions, evaluateIf, locksFor } from './webdav.conditions.js';
import { encodePath } from './webdav.paths.js';
import { Answer, etagOf, goAhead, readBytes, received, SMALL_FILE } from './webdav.request.js';
import { childrenOf, parentIsFolder, statOf, writeTo } from './webdav.files.js';
import { refused, targetOfCtx, type Ctx, type Target } from './webdav.site.js';
import { esc } from '../../lib/xml.js';

export async function get(ctx: Ctx, head: boolean): Promise<void> {
  let s: ReadResult | null;
  try {
    s = await ctx.site.d.storages.read(ctx.grant, ctx.inner, head ? 0 : SMALL_FILE);
  } catch (err) {
    refused(err);
  }
  // A FIFO or a device is nobody's download.
  if (!s || s.kind === 'other') throw new Answer(404);
  checkPreconditions(ctx.req, s);
  const ims = ctx.req.headers['if-modified-since'];
  if (ims && ctx.req.headers['if-none-match'] === undefined && Math.floor(s.mtimeMs / 1000) <= Math.floor(Date.parse(ims) / 1000)) throw new Answer(304);
  const common = { etag: etagOf(s), 'last-modified': new Date(s.mtimeMs).toUTCString(), 'accept-ranges': 'bytes' };
  if (s.kind === 'dir') {
    const t = await targetOfCtx(ctx, 'read');
    const names = await childrenOf(t, async (path) => (await ctx.site.d.storages.resolve(t.grant, path, 'read').catch(() => null))?.real ?? null);
    const base = t.href(true);
    const body = `<!doctype html><meta charset="utf-8"><ul>${names.map((e) => `<li><a href="${esc(base + encodePath(e.name) + (e.stat.isDirectory() ? '/' : ''))}">${esc(e.name)}</a></li>`).join('')}</ul>\n`;
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
  const t = await targetOfCtx(ctx, 'read');
  if (t.grant.remote) {
    const count = (n: number) => (ctx.site.counters.bytesOut += n);
    return sendRemoteRange(ctx.req, ctx.res, t.grant.remote, t.rp.path, { start, last }, { status, headers, count }, { native: ctx.site.d.nativeFiles ?? false });
  }
  // Opened before the head: a file that cannot be read is still a status, not a cut connection.
  const file = await open(t.rp.real, 'r');
  ctx.res.writeHead(status, headers);
  await sendFileBody(ctx.req, ctx.res, file, start, last - start + 1, { native: ctx.site.d.nativeFiles ?? false });
}

/**
 * A small upload with nothing to check but the path: no conditions, no locks anywhere. It is
 * read whole and handed to the storages' one-step write, a tenth of the disk round trips of the
 * streamed way. Anything else goes the streamed way.
 */
async function putSmall(ctx: Ctx): Promise<boolean> {
  const h = ctx.req.headers;
  const length = Number(h['content-length'] ?? NaN);
  if (!(length <= SMALL_FILE) || h['x-expected-entity-length'] !== undefined || h['content-range'] !== undefined) return false;
  if (h.if !== undefined || h['if-match'] !== undefined || h['if-none-match'] !== undefined || h['if-unmodified-since'] !== undefined) return false;
  if (!ctx.site.d.locks.empty) return false;
  let body: Buffer;
  try {
    body = await readBytes(ctx.req, length, ctx.site.counters);
  } catch {
    throw new Answer(400);
  }
  if (!ctx.req.complete) throw new Answer(400);
  let r: WriteResult;
  try {
    r = await ctx.site.d.storages.write(ctx.grant, ctx.inner, body);
  } catch (err) {
    const key = err instanceof MsgError ? err.msg.key : (err as NodeJS.ErrnoException).code;
    if (key === 'storageNoFolder') throw new Answer(409);
    if (key === 'storageIsFolder') throw new Answer(405);
    if (key === 'storageQuotaFull' || key === 'ENOSPC' || key === 'EDQUOT') throw new Answer(507);
    refused(err);
  }
  ctx.res.writeHead(r.created ? 201 : 204, { etag: etagOf(r), 'last-modified': new Date(r.mtimeMs).toUTCString(), 'content-length': 0 });
  ctx.res.end();
  return true;
}

export async function put(ctx: Ctx): Promise<void> {
  if (await putSmall(ctx)) return;
  const t = await targetOfCtx(ctx, 'write');
  if (t.rp.path === '/') throw new Answer(405);
  const s = await statOf(t);
  if (s?.isDirectory()) throw new Answer(405);
  const tokens = await evaluateIf(ctx, t);
  checkPreconditions(ctx.req, s);
  checkLocks(ctx, tokens, locksFor(ctx.site, t, { membership: !s }));
  if (ctx.req.headers['content-range']) throw new Answer(400);
  if (!(await parentIsFolder(t))) throw new Answer(409);
  if (t.grant.remote) return putRemote(ctx, t, s !== null);
  const dir = dirname(t.rp.real);
  const room = await ctx.site.d.storages.room(t.grant);
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
        ctx.site.counters.bytesIn += c.length;
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

/**
 * A PUT to a remote storage: the request body streamed to the remote as it arrives (its size
 * passed on when the client said it), the remote keeping the file's old content until the new one
 * is complete. A client that goes away mid-body aborts the remote upload.
 */
async function putRemote(ctx: Ctx, t: Target, existed: boolean): Promise<void> {
  const declared = Number(ctx.req.headers['content-length'] ?? NaN);
  goAhead(ctx.req);
  let written = 0;
  const counted = new Transform({
    transform(c: Buffer, _e, cb) {
      written += c.length;
      ctx.site.counters.bytesIn += c.length;
      received.set(ctx.req, written);
      cb(null, c);
    },
    flush(cb) {
      // Cut short: the remote must not take this as the whole file.
      cb(ctx.req.complete ? null : new Error('request body cut short'));
    },
  });
  ctx.req.on('aborted', () => counted.destroy(new Error('client went away')));
  ctx.req.pipe(counted);
  try {
    await writeTo(t, counted, Number.isFinite(declared) ? declared : undefined);
  } catch (err) {
    if (!ctx.req.complete) throw new Answer(400);
    throw err;
  }
  const now = await statOf({ ...t, rp: { ...t.rp, exists: true } });
  const meta = now ?? { ino: 0, size: written, mtimeMs: Date.now() };
  ctx.res.writeHead(existed ? 204 : 201, { etag: etagOf(meta), 'last-modified': new Date(meta.mtimeMs).toUTCString(), 'content-length': 0 });
  ctx.res.end();
}
