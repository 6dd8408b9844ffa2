/**
 * The methods that change the tree: DELETE, MKCOL, COPY and MOVE (within a storage or across two,
 * bounded by the destination's quota), with the locks and properties that go with what they touch.
 */
import { checkLocks, checkPreconditions, evaluateIf, locksFor } from './webdav.conditions.js';
import { isUnder } from './webdav.locks.js';
import { Answer, hdr, MAX_XML, readBody } from './webdav.request.js';
import { copyTree, makeFolder, moveTree, parentIsFolder, removeTree, statOf, treeSize } from './webdav.files.js';
import { destination, targetOfCtx, type Ctx } from './webdav.site.js';

export async function remove(ctx: Ctx): Promise<void> {
  const t = await targetOfCtx(ctx, 'delete');
  if (t.rp.path === '/') throw new Answer(403);
  const s = await statOf(t);
  if (!s) throw new Answer(404);
  const depth = hdr(ctx.req, 'depth');
  if (s.isDirectory() && depth !== undefined && depth.toLowerCase() !== 'infinity') throw new Answer(400);
  const tokens = await evaluateIf(ctx, t);
  checkPreconditions(ctx.req, s);
  checkLocks(ctx, tokens, locksFor(ctx.site, t, { tree: true, membership: true }));
  await removeTree(t);
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
    await makeFolder(t);
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
  const s = await statOf(src);
  if (!s) throw new Answer(404);
  if (dst.rp.path === '/') throw new Answer(403);
  const depthH = (hdr(ctx.req, 'depth') ?? 'infinity').toLowerCase();
  if (depthH !== 'infinity' && (move || depthH !== '0')) throw new Answer(400);
  if (src.grant.storage === dst.grant.storage && isUnder(dst.rp.path, src.rp.path)) throw new Answer(403);
  const overwrite = (hdr(ctx.req, 'overwrite') ?? 'T').toUpperCase() !== 'F';
  const tokens = await evaluateIf(ctx, src);
  if (move) checkLocks(ctx, tokens, locksFor(ctx.site, src, { tree: true, membership: true }));
  const ds = await statOf(dst);
  if (ds && !overwrite) throw new Answer(412);
  checkLocks(ctx, tokens, locksFor(ctx.site, dst, { tree: true, membership: true }));
  if (!(await parentIsFolder(dst))) throw new Answer(409);
  const sameStorage = src.grant.storage === dst.grant.storage;
  if (!move || !sameStorage) {
    const room = await ctx.site.d.storages.room(dst.grant);
    // No quota (a remote's is its server's): nothing to add up.
    const need = !Number.isFinite(room) || (s.isDirectory() && depthH === '0') ? 0 : await treeSize(src);
    if (need > room + (ds ? await treeSize(dst) : 0)) throw new Answer(507);
  }
  if (ds) {
    await removeTree(dst);
    ctx.site.d.locks.dropWithin(dst.key);
  }
  if (move) {
    await moveTree(src, { ...dst, rp: { ...dst.rp, exists: false } });
    ctx.site.d.locks.dropWithin(src.key);
  } else {
    await copyTree(src, { ...dst, rp: { ...dst.rp, exists: false } }, s.isDirectory() && depthH === '0');
  }
  await ctx.site.d.props.transfer({ storage: src.grant.storage, path: src.rp.path }, { storage: dst.grant.storage, path: dst.rp.path }, move);
  ctx.res.writeHead(ds ? 204 : 201, { 'content-length': 0 });
  ctx.res.end();
}
