/**
 * The file browser's API: browse, search, download (file with Range, folder or selection as a
 * streamed zip), the file operations, the text editor, resumable uploads, download tickets, and
 * the public share routes. Each handler resolves its paths through the storages service with the
 * identity of the module's settings before touching anything; a batch (move, copy, delete) is
 * checked whole before its first change.
 */
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply } from 'fastify';
import { FB_TEXT_MAX, Ret, message, type FbEntry, type filebrowserContract, type Lang, type MessageKey, type MsgValue } from '@lucky/contracts';
import { fail } from '../../core/envelope.js';
import type { OwnHandlers } from '../../core/module.js';
import type { ResolvedPath, StorageGrant } from '../../core/services/storages.js';
import {
  asAppError,
  baseName,
  childPath,
  entryOf,
  grantFor,
  isRootPath,
  principalOf,
  resolveOr,
  sortEntries,
} from './filebrowser.fs.js';
import { contentTypeOf } from '../../lib/http/files.js';
import { sendZip } from './filebrowser.send.js';
import {
  createEmptyAt,
  entriesAt,
  listAt,
  lstatAt,
  mkdirAt,
  parentIsFolder,
  readAllAt,
  removeAt,
  renameAt,
  saveAt,
  sendAt,
  statAt,
  thumbSourceAt,
  touched,
  transferAt,
  treeSizeAt,
  zipSourcesAt,
} from './filebrowser.storage.js';
import { INDEX_RECHECK_MS, matcher, RECHECK_WAIT_MS } from './filebrowser.index.js';
import { shareHandlers } from './filebrowser.share.js';
import { stateOf, TICKET_MS, type FbContext } from './filebrowser.state.js';
import { cancelUpload, checkRoom, completeUpload, createUpload, uploadOf, uploadView, writeChunk } from './filebrowser.uploads.js';

type Handlers = OwnHandlers<typeof filebrowserContract>;

/** A plain-text HTTP error, for what a browser fetches directly (a ticket's link). */
export function httpError(reply: FastifyReply, status: number, lang: Lang, key: MessageKey, vars?: Record<string, MsgValue>): FastifyReply {
  return reply.code(status).type('text/plain; charset=utf-8').header('cache-control', 'no-store').send(message(lang, key, vars));
}

/** How long a search waits for a storage's first walk before it answers with what is indexed (saying so). */
const FIRST_WALK_WAIT_MS = 5000;

const human = (n: number) => (n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : `${Math.ceil(n / 1024)} KiB`);

export function filebrowserRoutes(mod: FbContext): Handlers {
  const storages = mod.services.storages;
  const state = stateOf(mod);
  const grant = (storage: string): StorageGrant => grantFor(storages, principalOf(mod), storage);

  /** Resolves every path first (nothing is changed unless all of them may be). */
  async function resolveAll(g: StorageGrant, paths: string[], op: 'read' | 'write' | 'delete'): Promise<ResolvedPath[]> {
    const out: ResolvedPath[] = [];
    for (const p of paths) {
      if (op !== 'read' && isRootPath(p)) throw fail(Ret.badRequest, 'fbRootForbidden');
      const rp = await resolveOr(storages, g, p, op);
      if (!rp.exists) throw fail(Ret.notFound, 'fbNotFound', { path: rp.path });
      out.push(rp);
    }
    return out;
  }

  async function folder(g: StorageGrant, path: string, op: 'read' | 'write'): Promise<ResolvedPath> {
    const rp = await resolveOr(storages, g, path, op);
    if (!rp.exists) throw fail(Ret.notFound, 'fbNotFound', { path: rp.path });
    const s = await statAt(rp).catch((e: unknown) => Promise.reject(asAppError(e, rp.path)));
    if (!s.isDirectory()) throw fail(Ret.badRequest, 'fbNotDir', { path: rp.path });
    return rp;
  }

  /** Move or copy: every source and target checked (permissions, into itself, existing names, quota) before the first change. */
  async function transfer(body: { storage: string; paths: string[]; to: string; toStorage?: string | undefined; overwrite: boolean }, move: boolean): Promise<void> {
    const g = grant(body.storage);
    const dg = body.toStorage && body.toStorage !== body.storage ? grant(body.toStorage) : g;
    const same = dg.storage === g.storage;
    const sources = await resolveAll(g, body.paths, move ? 'delete' : 'read');
    const dir = await folder(dg, body.to, 'write');
    const plan: Array<{ src: ResolvedPath; dst: ResolvedPath; replace: boolean }> = [];
    const names = new Set<string>();
    let need = 0;
    for (const src of sources) {
      const name = baseName(src.path);
      const dst = await resolveOr(storages, dg, childPath(dir.path, name), 'write');
      const s = await lstatAt(src).catch((e: unknown) => Promise.reject(asAppError(e, src.path)));
      if (same && s.isDirectory() && (dst.path === src.path || dst.path.startsWith(`${src.path}/`))) throw fail(Ret.badRequest, 'fbIntoItself', { path: src.path });
      if (same && dst.path === src.path) throw fail(Ret.failed, 'fbExists', { path: dst.path });
      if (names.has(name)) throw fail(Ret.failed, 'fbExists', { path: dst.path });
      names.add(name);
      if (dst.exists && !body.overwrite) throw fail(Ret.failed, 'fbExists', { path: dst.path });
      if (dst.exists) await resolveOr(storages, dg, dst.path, 'delete');
      // Only a quota needs the bytes counted (on a remote, a walk over the network).
      if ((!move || !same) && dg.quota !== null) need += await treeSizeAt(src).catch((e: unknown) => Promise.reject(asAppError(e, src.path)));
      plan.push({ src, dst, replace: dst.exists });
    }
    await checkRoom(storages, state, dg, need);
    try {
      await run(plan, move);
    } finally {
      if (move) await touched(state, g, sources.map((rp) => dirname(rp.real)));
      await touched(state, dg, [dir.real]);
    }
  }

  async function run(plan: Array<{ src: ResolvedPath; dst: ResolvedPath; replace: boolean }>, move: boolean): Promise<void> {
    for (const { src, dst, replace } of plan) {
      try {
        if (replace) await removeAt(dst);
        await transferAt(src, dst, move);
      } catch (err) {
        throw asAppError(err, src.path);
      }
    }
  }

  /** A ticket's or the API's download: one file as itself, anything else as a zip. */
  async function download(reply: FastifyReply, req: FastifyReply['request'], items: ResolvedPath[], name: string, inline: boolean): Promise<FastifyReply> {
    if (items.length === 1) {
      const s = await statAt(items[0]!).catch((e: unknown) => Promise.reject(asAppError(e, items[0]!.path)));
      if (s.isFile()) return sendAt(req.raw, reply, items[0]!, s, baseName(items[0]!.path), inline, mod.env.nativeRelay);
    }
    return sendZip(reply, zipSourcesAt(items), name || (items.length === 1 ? baseName(items[0]!.path) || 'files' : 'files'));
  }

  return {
    storages: () => {
      const who = principalOf(mod);
      return {
        identity: { kind: who.kind === 'admin' ? 'admin' : 'user', account: who.account },
        list: storages.grants(who, { remote: true }).map((g) => ({ key: g.storage, name: g.name, readOnly: g.readOnly, quota: g.quota, can: g.can })),
      };
    },

    browse: async ({ query }) => {
      const g = grant(query.storage);
      const rp = await folder(g, query.path, 'read');
      // Someone is browsing this storage: its name index is walked meanwhile, ready for a search.
      state.indexes.setMax(mod.rules.settings().indexMax);
      state.indexes.of(g);
      try {
        return { path: rp.path, entries: sortEntries(await listAt(storages, g, rp), query.sort, query.order), can: g.can };
      } catch (err) {
        throw asAppError(err, rp.path);
      }
    },

    stat: async ({ query }) => {
      const g = grant(query.storage);
      const rp = await resolveOr(storages, g, query.path, 'read');
      if (!rp.exists) throw fail(Ret.notFound, 'fbNotFound', { path: rp.path });
      const s = await statAt(rp).catch((e: unknown) => Promise.reject(asAppError(e, rp.path)));
      const link = (await lstatAt(rp).catch(() => s)).isSymbolicLink();
      const items = s.isDirectory() ? (await listAt(storages, g, rp).catch((e: unknown) => Promise.reject(asAppError(e, rp.path)))).length : null;
      return { path: rp.path, entry: entryOf(baseName(rp.path) || g.name, s, link), mime: s.isDirectory() ? '' : contentTypeOf(rp.path), items };
    },

    search: async ({ query }) => {
      const s = mod.rules.settings();
      state.indexes.setMax(s.indexMax);
      // One storage (its grant and the folder's path check, as a listing), or every one the identity may read.
      const targets: ResolvedPath[] = [];
      if (query.storage) targets.push(await folder(grant(query.storage), query.path, 'read'));
      else {
        // A storage whose folder is gone (a disk not mounted, a remote down) is left out, not the whole search.
        for (const g of storages.grants(principalOf(mod), { remote: true })) if (g.can.read) await folder(g, '/', 'read').then((rp) => targets.push(rp), () => undefined);
      }
      const m = matcher(query.q);
      const results: Array<FbEntry & { path: string; storage: string }> = [];
      let truncated = false;
      let indexing = false;
      let partial = false;
      let indexed = 0;
      for (const rp of targets) {
        const g = rp.grant;
        const idx = state.indexes.of(g);
        const under = idx.source.tree(rp.real);
        if (under === null) continue;
        if (!idx.built) await Promise.race([idx.ready, sleep(FIRST_WALK_WAIT_MS, undefined, { ref: false })]);
        // Others' writes (WebDAV, FTP, a shell) since the last check: folders whose mtime moved are read
        // again. A remote has no folder times: it is walked again on the timer, never while a search waits.
        else if (idx.source.stamp && Date.now() - idx.lastCheck > INDEX_RECHECK_MS) await Promise.race([idx.check(), sleep(RECHECK_WAIT_MS, undefined, { ref: false })]);
        indexing ||= !idx.built;
        partial ||= idx.partial;
        indexed += idx.count;
        if (results.length >= s.searchMax) {
          truncated = true;
          continue;
        }
        const hits = idx.search(under, m, s.searchDepth, s.searchMax - results.length);
        truncated ||= hits.more;
        // Each hit as it is now; one gone since the walk is left out, its folder read again later.
        const entries = await entriesAt(g, hits.paths);
        hits.paths.forEach((p, j) => {
          const e = entries[j];
          if (!e) return idx.stale(p);
          const path = rp.path === '/' ? (under === '/' ? p : p.slice(under.length)) : `${rp.path}${p.slice(under === '/' ? 0 : under.length)}`;
          results.push({ ...e, path: path || '/', storage: g.storage });
        });
      }
      return { results, truncated, indexing, partial, indexed };
    },

    thumb: async ({ query, reply }) => {
      const g = grant(query.storage);
      const [rp] = await resolveAll(g, [query.path], 'read');
      const st = await statAt(rp!).catch((e: unknown) => Promise.reject(asAppError(e, rp!.path)));
      if (!st.isFile()) throw fail(Ret.badRequest, 'fbThumbNotImage', { path: rp!.path });
      state.thumbs.cap = mod.rules.settings().thumbCacheMb * 1024 * 1024;
      const t = await state.thumbs.get(thumbSourceAt(g, rp!, st), Number(query.size)).catch((e: unknown) => Promise.reject(asAppError(e, rp!.path)));
      return reply
        .type('image/webp')
        .header('cache-control', 'private, max-age=86400')
        .header('x-content-type-options', 'nosniff')
        .header('x-lucky-thumb', t.cached ? 'cached' : 'made')
        .send(t.data);
    },

    download: async ({ query, reply, req }) => {
      const g = grant(query.storage);
      const items = await resolveAll(g, [query.path], 'read');
      return download(reply, req, items, '', query.inline === '1');
    },

    zip: async ({ body, reply }) => {
      const g = grant(body.storage);
      const items = await resolveAll(g, body.paths, 'read');
      return sendZip(reply, zipSourcesAt(items), body.name || (items.length === 1 ? baseName(items[0]!.path) || g.name : g.name));
    },

    ticket: async ({ body }) => {
      const who = principalOf(mod);
      const g = grantFor(storages, who, body.storage);
      const items = await resolveAll(g, body.paths, 'read');
      const expires = Date.now() + TICKET_MS;
      const id = state.addTicket({ who, storage: g.storage, paths: items.map((i) => i.path), name: body.name, inline: body.inline, expires });
      return { ticket: id, url: `api/filebrowser/get/${id}`, expires };
    },

    fetchTicket: async ({ params, reply, req }) => {
      const t = state.ticket(params.ticket);
      if (!t) return httpError(reply, 404, req.lang, 'fbShareRevoked');
      const g = storages.grant(t.who, t.storage, { remote: true });
      if (!g) return httpError(reply, 404, req.lang, 'storageUnknown', { storage: t.storage });
      let items: ResolvedPath[];
      try {
        items = await resolveAll(g, t.paths, 'read');
      } catch (err) {
        const e = asAppError(err);
        return httpError(reply, e.ret === Ret.notFound ? 404 : 403, req.lang, (e.key ?? 'fbFsFailed') as MessageKey, e.vars);
      }
      return download(reply, req, items, t.name, t.inline);
    },

    mkdir: async ({ body }) => {
      const g = grant(body.storage);
      const dir = await folder(g, body.path, 'write');
      const rp = await resolveOr(storages, g, childPath(dir.path, body.name), 'write');
      if (rp.exists) throw fail(Ret.failed, 'fbExists', { path: rp.path });
      await mkdirAt(rp).catch((e: unknown) => Promise.reject(asAppError(e, rp.path)));
      await touched(state, g, [dir.real]);
      return { path: rp.path };
    },

    newFile: async ({ body }) => {
      const g = grant(body.storage);
      const dir = await folder(g, body.path, 'write');
      const rp = await resolveOr(storages, g, childPath(dir.path, body.name), 'write');
      if (rp.exists) throw fail(Ret.failed, 'fbExists', { path: rp.path });
      await createEmptyAt(rp).catch((e: unknown) => Promise.reject(asAppError(e, rp.path)));
      await touched(state, g, [dir.real]);
      return { path: rp.path };
    },

    rename: async ({ body }) => {
      const g = grant(body.storage);
      if (isRootPath(body.path)) throw fail(Ret.badRequest, 'fbRootForbidden');
      const [src] = await resolveAll(g, [body.path], 'write');
      const parent = src!.path.slice(0, src!.path.lastIndexOf('/')) || '/';
      const dst = await resolveOr(storages, g, childPath(parent, body.name), 'write');
      if (dst.path === src!.path) return { path: dst.path };
      // Only the case of the name changes (a.txt → A.txt) on a case-insensitive disk: the same file.
      if (dst.exists && dst.path.toLowerCase() !== src!.path.toLowerCase()) throw fail(Ret.failed, 'fbExists', { path: dst.path });
      await renameAt(src!, dst).catch((e: unknown) => Promise.reject(asAppError(e, src!.path)));
      await touched(state, g, [dirname(src!.real), dirname(dst.real)]);
      return { path: dst.path };
    },

    move: async ({ body }) => {
      await transfer(body, true);
      return {};
    },

    copy: async ({ body }) => {
      await transfer(body, false);
      return {};
    },

    deletePaths: async ({ body }) => {
      const g = grant(body.storage);
      const items = await resolveAll(g, body.paths, 'delete');
      try {
        for (const rp of items) await removeAt(rp).catch((e: unknown) => Promise.reject(asAppError(e, rp.path)));
      } finally {
        await touched(state, g, items.map((rp) => dirname(rp.real)));
      }
      return { deleted: items.length };
    },

    readText: async ({ query }) => {
      const g = grant(query.storage);
      const [rp] = await resolveAll(g, [query.path], 'read');
      const s = await statAt(rp!).catch((e: unknown) => Promise.reject(asAppError(e, rp!.path)));
      if (!s.isFile()) throw fail(Ret.badRequest, 'fbNotFile', { path: rp!.path });
      if (s.size > FB_TEXT_MAX) throw fail(Ret.badRequest, 'fbTextTooLarge', { max: human(FB_TEXT_MAX) });
      const buf = await readAllAt(rp!, FB_TEXT_MAX).catch((e: unknown) => Promise.reject(asAppError(e, rp!.path)));
      let content: string;
      try {
        if (buf.subarray(0, 8192).includes(0)) throw new Error('binary');
        content = new TextDecoder('utf-8', { fatal: true }).decode(buf);
      } catch {
        throw fail(Ret.badRequest, 'fbTextBinary');
      }
      return { content, size: s.size, mtime: Math.round(s.mtimeMs) };
    },

    saveText: async ({ body }) => {
      const g = grant(body.storage);
      if (isRootPath(body.path)) throw fail(Ret.badRequest, 'fbRootForbidden');
      const rp = await resolveOr(storages, g, body.path, 'write');
      const data = Buffer.from(body.content, 'utf8');
      if (data.length > FB_TEXT_MAX) throw fail(Ret.badRequest, 'fbTextTooLarge', { max: human(FB_TEXT_MAX) });
      let old = 0;
      if (rp.exists) {
        const s = await statAt(rp).catch((e: unknown) => Promise.reject(asAppError(e, rp.path)));
        if (!s.isFile()) throw fail(Ret.badRequest, 'fbNotFile', { path: rp.path });
        old = s.size;
      }
      if (!(await parentIsFolder(rp).catch((e: unknown) => Promise.reject(asAppError(e, rp.path))))) throw fail(Ret.notFound, 'fbNotFound', { path: rp.path.slice(0, rp.path.lastIndexOf('/')) || '/' });
      await checkRoom(storages, state, g, data.length - old);
      // A crash (or a remote that goes away) leaves the old file or the new one, never half.
      const s = await saveAt(rp, data).catch((e: unknown) => Promise.reject(asAppError(e, rp.path)));
      if (!rp.exists) await touched(state, g, [dirname(rp.real)]);
      return { size: s.size, mtime: Math.round(s.mtimeMs) };
    },

    uploadCreate: async ({ body }) => {
      const g = grant(body.storage);
      return { upload: uploadView(await createUpload(storages, state, g, body.path, body.size, body.overwrite)) };
    },

    uploadList: () => ({ list: [...state.uploads.values()].map(uploadView) }),

    uploadStatus: ({ params, reply }) => {
      const u = uploadOf(state, params.id);
      reply.header('upload-offset', String(u.offset)).header('upload-length', String(u.size)).header('cache-control', 'no-store');
      return { upload: uploadView(u) };
    },

    uploadChunk: async ({ params, query, req }) => {
      const u = uploadOf(state, params.id);
      await writeChunk(storages, state, grant(u.storage), u, query.offset, req.body);
      return { upload: uploadView(u) };
    },

    uploadComplete: async ({ params }) => {
      const u = uploadOf(state, params.id);
      const g = grant(u.storage);
      const path = await completeUpload(storages, state, g, u);
      // The deepest folder of the path the index has (the upload may have made the ones below it).
      const rp = await resolveOr(storages, g, path, 'read');
      await touched(state, g, [dirname(rp.real)]);
      return { path };
    },

    uploadCancel: async ({ params }) => {
      await cancelUpload(state, uploadOf(state, params.id));
      return {};
    },

    ...shareHandlers(mod),
  };
}
