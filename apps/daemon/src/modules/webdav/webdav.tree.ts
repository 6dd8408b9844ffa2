/**
 * The methods that change the tree: DELETE, MKCOL, COPY and MOVE (within a storage or across two,
 * bounded by the destination's quota), with the locks and properties that go with what they touch.
 */
import { cp, lstat, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { checkLocks, checkPreconditions, evaluateIf, locksFor } from './webdav.conditions.js';
import { isUnder } from './webdav.locks.js';
import { Answer, hdr, MAX_XML, readBody } from './webdav.request.js';
import { destination, targetOfCtx, type Ctx } from './webdav.site.js';

async function treeSize(real: string): Promise<number> {
  const s = await lstat(real);
  if (!s.isDirectory()) return s.size;
  let total = 0;
  for (const e of await readdir(real)) total += await treeSize(join(real, e));
  return total;
}

export async function remove(ctx: Ctx): Promise<void> {
  const t = await targetOfCtx(ctx, 'delete');
  if (t.rp.path === '/') throw new Answer(403);
  const s = await lstat(t.rp.real).catch(() => null);
  if (!s) throw new Answer(404);
  const depth = hdr(ctx.req, 'depth');
  if (s.isDirectory() && depth !== undefined && depth.toLowerCase() !== 'infinity') throw new Answer(400);
  const tokens = await evaluateIf(ctx, t);
  checkPreconditions(ctx.req, s);
  checkLocks(ctx, tokens, locksFor(ctx.site, t, { tree: true, membership: true }));
  await rm(t.rp.real, { recursive: true, force: true });
  ctx.site.d.locks.dropWithin(t.key);
  await ctx.site.d.props.remove(t.grant.storage, t.rp.path);
  ctx.res.writeHead(204, { 'content-length': 0 });
  ctx.res.end();
}

export async function mkcol(ctx: Ctx): Promise<void> {
  const t = await targetOfCtx(ctx, 'write');
  const body = await readBody(ctx.req, MAX_XML, ctx.site.counters);
  if (body.length > 0) throw new Answer(415);
  if (t.rp.exists) throw new Answer(405);
  const tokens = await evaluateIf(ctx, t);
  checkLocks(ctx, tokens, locksFor(ctx.site, t, { membership: true }));
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

export async function copyMove(ctx: Ctx, move: boolean): Promise<void> {
  const src = await targetOfCtx(ctx, move ? 'delete' : 'read');
  if (move && src.rp.path === '/') throw new Answer(403);
  const dst = await destination(ctx);
  const s = await lstat(src.rp.real).catch(() => null);
  if (!s) throw new Answer(404);
  if (dst.rp.path === '/') throw new Answer(403);
  const depthH = (hdr(ctx.req, 'depth') ?? 'infinity').toLowerCase();
  if (depthH !== 'infinity' && (move || depthH !== '0')) throw new Answer(400);
  if (src.grant.storage === dst.grant.storage && isUnder(dst.rp.path, src.rp.path)) throw new Answer(403);
  const overwrite = (hdr(ctx.req, 'overwrite') ?? 'T').toUpperCase() !== 'F';
  const tokens = await evaluateIf(ctx, src);
  if (move) checkLocks(ctx, tokens, locksFor(ctx.site, src, { tree: true, membership: true }));
  const ds = await lstat(dst.rp.real).catch(() => null);
  if (ds && !overwrite) throw new Answer(412);
  checkLocks(ctx, tokens, locksFor(ctx.site, dst, { tree: true, membership: true }));
  const pd = await stat(dirname(dst.rp.real)).catch(() => null);
  if (!pd?.isDirectory()) throw new Answer(409);
  const sameStorage = src.grant.storage === dst.grant.storage;
  if (!move || !sameStorage) {
    const need = s.isDirectory() && depthH === '0' ? 0 : await treeSize(src.rp.real);
    if (need > (await ctx.site.d.storages.room(dst.grant)) + (ds ? await treeSize(dst.rp.real) : 0)) throw new Answer(507);
  }
  if (ds) {
    await rm(dst.rp.real, { recursive: true, force: true });
    ctx.site.d.locks.dropWithin(dst.key);
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
    ctx.site.d.locks.dropWithin(src.key);
  } else if (s.isDirectory() && depthH === '0') {
    await mkdir(dst.rp.real);
  } else {
    await cp(src.rp.real, dst.rp.real, { recursive: true, errorOnExist: true, force: false, preserveTimestamps: false });
  }
  await ctx.site.d.props.transfer({ storage: src.grant.storage, path: src.rp.path }, { storage: dst.grant.storage, path: dst.rp.path }, move);
  ctx.res.writeHead(ds ? 204 : 201, { 'content-length': 0 });
  ctx.res.end();
}
