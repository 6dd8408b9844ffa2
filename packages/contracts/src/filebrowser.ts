/**
 * File browser (module `filebrowser`): the operator's file manager for the storages inside the
 * console. Its rules are share links (a file or folder, an expiry, an optional password), served
 * read-only on the public `/share/:token` routes; its settings say whose permissions the console
 * acts with (full admin access, or a chosen storage user's). Every path goes through the storages
 * service's one check.
 */
import { z } from 'zod';
import { ok, ZOk } from './envelope.js';
import { msgKey } from './i18n.js';
import { route } from './route.js';
import { moduleContract, ruleView, ZRuleKey } from './rules.js';
import { secret } from './secrets.js';

/** Text files the console opens in its editor: larger ones are downloaded. JSON-escaped they stay under the API's 1 MiB body limit. */
export const FB_TEXT_MAX = 512 * 1024;
/** Upload chunks the console sends; the daemon takes any size up to FB_CHUNK_MAX per request. */
export const FB_CHUNK = 8 * 1024 * 1024;
export const FB_CHUNK_MAX = 64 * 1024 * 1024;
/** Thumbnail sizes (the longest side, px) the daemon makes; the console's list asks for 128, previews for 512. */
export const FB_THUMB_SIZES = ['128', '256', '512'] as const;
/** Images larger than this many pixels get no thumbnail (a decompression bomb is refused from its header). */
export const FB_THUMB_PIXELS_MAX = 40_000_000;
/** File names the console offers a thumbnail for (the daemon judges the content, not the name). */
export const FB_THUMB_NAMES = /\.(jpe?g|png|webp|gif|avif|tiff?)$/i;

/** A path inside a storage as the client names it: `/a/b`; the storages service judges it. */
export const ZFbPath = z.string().max(4096).default('/');
/** One name in a folder: no separator, no NUL, not `.` or `..`. */
export const ZFbName = z
  .string()
  .min(1, { error: msgKey('fbNameInvalid') })
  .max(255, { error: msgKey('fbNameInvalid') })
  .refine((n) => !/[/\\\0]/.test(n) && n !== '.' && n !== '..' && n.trim() !== '', { error: msgKey('fbNameInvalid') });

export const ZFbKind = z.enum(['file', 'dir', 'link', 'other']);
export type FbKind = z.infer<typeof ZFbKind>;

export const ZFbEntry = z.object({
  name: z.string(),
  kind: ZFbKind,
  /** A symlink (kept inside the storage) shown as what it points at. */
  link: z.boolean(),
  size: z.number(),
  /** Unix ms. */
  mtime: z.number(),
  /** The file's mode as `ls` shows it: `rw-r--r--`. */
  mode: z.string(),
});
export type FbEntry = z.infer<typeof ZFbEntry>;

export const ZFbCan = z.object({ read: z.boolean(), write: z.boolean(), delete: z.boolean() });

export const ZFbStorage = z.object({
  key: ZRuleKey,
  name: z.string(),
  readOnly: z.boolean(),
  quota: z.number().nullable(),
  can: ZFbCan,
});
export type FbStorage = z.infer<typeof ZFbStorage>;

const ZSort = z.enum(['name', 'size', 'mtime']).default('name');
const ZOrder = z.enum(['asc', 'desc']).default('asc');

const at = { storage: ZRuleKey, path: ZFbPath };
/** A name given to something at a path (new folder, new file, rename); the answer is the path it now has. */
const ZNameAt = z.object({ ...at, name: ZFbName });
const ZPathAnswer = ok({ path: z.string() });
const ZPaths = z.array(z.string().max(4096)).min(1, { error: msgKey('cannotBeEmpty') }).max(1000);

// ------------------------------------------------------------------ shares (the module's rules)

export const ZFbShareFields = z.object({
  /** What the share list shows; the console proposes the file's name. */
  name: z.string().trim().min(1, { error: msgKey('cannotBeEmpty') }).max(128),
  enable: z.boolean().default(true),
  storage: ZRuleKey,
  path: z.string().min(1).max(4096),
  /** Unix ms after which the link answers 410; null = no expiry. */
  expires: z.number().int().min(0).nullable().default(null),
  /** Empty = no password; stored as a scrypt hash. */
  password: secret(z.string().max(256), { hash: true }).default(''),
  /** The link's random part; made by the daemon (what a client sends is ignored). */
  token: z.string().max(64).default(''),
  note: z.string().max(512).default(''),
});
export const ZFbShare = ZFbShareFields;
export type FbShare = z.infer<typeof ZFbShare>;
export type FbShareInput = z.input<typeof ZFbShare>;

export const ZFbShareView = ruleView(ZFbShareFields, {
  /** Relative to the console's base: `share/<token>`. */
  url: z.string(),
  expired: z.boolean(),
  hasPassword: z.boolean(),
  /** What the path is now: a file, a folder, or gone. */
  target: z.enum(['file', 'dir', 'missing']),
  /** Downloads served through the link. */
  downloads: z.number(),
});
export type FbShareView = z.infer<typeof ZFbShareView>;

export const ZFilebrowserConfigure = z
  .object({
    /** Whose permissions the console acts with: full access, or those of a storage user. */
    identity: z.enum(['admin', 'user']).default('admin'),
    /** The storage user when identity is `user`. */
    account: z.string().trim().max(64).default(''),
    /** Search: results and folder depth at most. */
    searchMax: z.number().int().min(10).max(5000).default(500),
    searchDepth: z.number().int().min(1).max(64).default(16),
    /**
     * Names the search index keeps in memory, all storages together (about 60 bytes each); a storage
     * whose walk reaches it is searched in the part indexed (the answer says `partial`).
     */
    indexMax: z.number().int().min(100).max(5_000_000).default(200_000),
    /** The thumbnails kept on disk (under the data folder), MiB; the least recently used go first. */
    thumbCacheMb: z.number().int().min(1).max(65_536).default(64),
  })
  .superRefine((c, ctx) => {
    if (c.identity === 'user' && c.account === '') ctx.addIssue({ code: 'custom', path: ['account'], message: msgKey('cannotBeEmpty') });
  });
export type FilebrowserConfigure = z.infer<typeof ZFilebrowserConfigure>;

export const ZFbUpload = z.object({
  id: z.string(),
  storage: ZRuleKey,
  path: z.string(),
  size: z.number(),
  offset: z.number(),
  /** Unix ms of the last chunk. */
  active: z.number(),
});
export type FbUpload = z.infer<typeof ZFbUpload>;

const M = 'filebrowser';
const ZIdParams = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/) });
const ZTokenParams = z.object({ token: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/) });

export const filebrowserContract = moduleContract(
  'filebrowser',
  { input: ZFbShare, view: ZFbShareView, configure: ZFilebrowserConfigure },
  {
    storages: route({
      method: 'GET',
      path: '/api/filebrowser/storages',
      summary: 'The storages the console may browse with the configured identity, with what it may do in each',
      module: M,
      response: ok({ identity: z.object({ kind: z.enum(['admin', 'user']), account: z.string() }), list: z.array(ZFbStorage) }),
    }),
    browse: route({
      method: 'GET',
      path: '/api/filebrowser/list',
      summary: 'A folder: its entries, sorted (folders first)',
      module: M,
      query: z.object({ ...at, sort: ZSort, order: ZOrder }),
      response: ok({ path: z.string(), entries: z.array(ZFbEntry), can: ZFbCan }),
    }),
    stat: route({
      method: 'GET',
      path: '/api/filebrowser/stat',
      summary: 'One file or folder: size, time, mode, type',
      module: M,
      query: z.object(at),
      response: ok({ path: z.string(), entry: ZFbEntry, mime: z.string(), items: z.number().nullable() }),
    }),
    search: route({
      method: 'GET',
      path: '/api/filebrowser/search',
      summary:
        'Names containing a text (case-insensitive; * and ? make it a pattern of the whole name), in a folder and below, from the storage\'s name index; without storage, in every storage the identity may read',
      module: M,
      query: z.object({
        storage: ZRuleKey.optional(),
        path: ZFbPath,
        q: z.string().trim().min(1, { error: msgKey('cannotBeEmpty') }).max(255),
      }),
      response: ok({
        results: z.array(ZFbEntry.extend({ path: z.string(), storage: ZRuleKey })),
        /** More names matched than the results carry (the setting searchMax). */
        truncated: z.boolean(),
        /** A storage's first walk had not finished: names it has not reached yet are missing. */
        indexing: z.boolean(),
        /** The index reached its bound (the setting indexMax): only the part indexed was searched. */
        partial: z.boolean(),
        /** Names in the index(es) searched. */
        indexed: z.number(),
      }),
    }),
    thumb: route({
      method: 'GET',
      path: '/api/filebrowser/thumb',
      summary: 'A WebP thumbnail of an image (JPEG, PNG, WebP, GIF, AVIF, TIFF), made on demand and cached on disk; a refusal is the usual {ret, msg}',
      module: M,
      query: z.object({ ...at, size: z.enum(FB_THUMB_SIZES).default('128') }),
      raw: 'download',
      response: z.unknown(),
    }),
    download: route({
      method: 'GET',
      path: '/api/filebrowser/download',
      summary: 'A file (Range supported), or a folder as a zip made while it is sent',
      module: M,
      query: z.object({ ...at, inline: z.enum(['0', '1']).default('0') }),
      raw: 'download',
      response: z.unknown(),
    }),
    zip: route({
      method: 'POST',
      path: '/api/filebrowser/zip',
      summary: 'Several files and folders of one folder as one zip, made while it is sent',
      module: M,
      body: z.object({ storage: ZRuleKey, paths: ZPaths, name: z.string().max(200).default('') }),
      raw: 'download',
      response: z.unknown(),
    }),
    ticket: route({
      method: 'POST',
      path: '/api/filebrowser/ticket',
      summary: 'A short-lived link for the browser to fetch a file, a folder or a selection without the token header (downloads, media players)',
      module: M,
      body: z.object({ storage: ZRuleKey, paths: ZPaths, name: z.string().max(200).default(''), inline: z.boolean().default(false) }),
      response: ok({ ticket: z.string(), url: z.string(), expires: z.number() }),
    }),
    fetchTicket: route({
      method: 'GET',
      path: '/api/filebrowser/get/:ticket',
      summary: 'What a ticket names (public: the ticket is the permission)',
      public: true,
      module: M,
      params: z.object({ ticket: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/) }),
      raw: 'download',
      response: z.unknown(),
    }),
    mkdir: route({
      method: 'POST',
      path: '/api/filebrowser/mkdir',
      summary: 'A new folder in a folder',
      module: M,
      body: ZNameAt,
      response: ZPathAnswer,
    }),
    newFile: route({
      method: 'POST',
      path: '/api/filebrowser/newfile',
      summary: 'A new empty file in a folder',
      module: M,
      body: ZNameAt,
      response: ZPathAnswer,
    }),
    rename: route({
      method: 'POST',
      path: '/api/filebrowser/rename',
      summary: 'A new name in the same folder',
      module: M,
      body: ZNameAt,
      response: ZPathAnswer,
    }),
    move: route({
      method: 'POST',
      path: '/api/filebrowser/move',
      summary: 'Files and folders into another folder (of this storage or another)',
      module: M,
      body: z.object({ storage: ZRuleKey, paths: ZPaths, to: z.string().max(4096), toStorage: ZRuleKey.optional(), overwrite: z.boolean().default(false) }),
      response: ZOk,
    }),
    copy: route({
      method: 'POST',
      path: '/api/filebrowser/copy',
      summary: 'Copies of files and folders (recursive) in another folder',
      module: M,
      body: z.object({ storage: ZRuleKey, paths: ZPaths, to: z.string().max(4096), toStorage: ZRuleKey.optional(), overwrite: z.boolean().default(false) }),
      response: ZOk,
    }),
    deletePaths: route({
      method: 'POST',
      path: '/api/filebrowser/delete',
      summary: 'Deletes files and folders (recursive); the console asks first',
      module: M,
      body: z.object({ storage: ZRuleKey, paths: ZPaths }),
      response: ok({ deleted: z.number() }),
    }),
    readText: route({
      method: 'GET',
      path: '/api/filebrowser/text',
      summary: 'A small text file for the editor',
      module: M,
      query: z.object(at),
      response: ok({ content: z.string(), size: z.number(), mtime: z.number() }),
    }),
    saveText: route({
      method: 'PUT',
      path: '/api/filebrowser/text',
      summary: 'Saves a small text file (replaced atomically)',
      module: M,
      body: z.object({ ...at, content: z.string().max(FB_TEXT_MAX, { error: msgKey('fbTextTooLarge') }) }),
      response: ok({ size: z.number(), mtime: z.number() }),
    }),
    uploadCreate: route({
      method: 'POST',
      path: '/api/filebrowser/uploads',
      summary: 'Starts a resumable upload of one file (its path may name new folders); answers its id',
      module: M,
      body: z.object({ storage: ZRuleKey, path: z.string().min(1).max(4096), size: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER), overwrite: z.boolean().default(false) }),
      response: ok({ upload: ZFbUpload }),
    }),
    uploadList: route({
      method: 'GET',
      path: '/api/filebrowser/uploads',
      summary: 'Uploads started and not finished (to resume)',
      module: M,
      response: ok({ list: z.array(ZFbUpload) }),
    }),
    uploadStatus: route({
      method: 'GET',
      path: '/api/filebrowser/uploads/:id',
      summary: 'How far an upload got (also in the Upload-Offset header; HEAD works too)',
      module: M,
      params: ZIdParams,
      response: ok({ upload: ZFbUpload }),
    }),
    uploadChunk: route({
      method: 'PATCH',
      path: '/api/filebrowser/uploads/:id',
      summary: 'Bytes of an upload at an offset (application/octet-stream); must start where the upload stands',
      module: M,
      params: ZIdParams,
      query: z.object({ offset: z.coerce.number().int().min(0) }),
      raw: 'upload',
      response: ok({ upload: ZFbUpload }),
    }),
    uploadComplete: route({
      method: 'POST',
      path: '/api/filebrowser/uploads/:id/complete',
      summary: 'Puts a fully sent upload in place (renamed atomically)',
      module: M,
      params: ZIdParams,
      response: ZPathAnswer,
    }),
    uploadCancel: route({
      method: 'DELETE',
      path: '/api/filebrowser/uploads/:id',
      summary: 'Cancels an upload and removes what was sent',
      module: M,
      params: ZIdParams,
      response: ZOk,
    }),
    // ---------------------------------------------------------- the public side of shares
    sharePage: route({
      method: 'GET',
      path: '/share/:token',
      summary: 'A share link: a page listing the shared folder, or the shared file (404 revoked, 410 expired, 401 password)',
      public: true,
      module: M,
      params: ZTokenParams,
      query: z.object({ path: z.string().max(4096).default('/'), k: z.string().max(256).default('') }),
      raw: 'download',
      response: z.unknown(),
    }),
    shareLogin: route({
      method: 'POST',
      path: '/share/:token',
      summary: 'The password of a share link (form or JSON `password`): answers where to go with the access key',
      public: true,
      module: M,
      params: ZTokenParams,
      raw: 'download',
      response: z.unknown(),
    }),
    shareList: route({
      method: 'GET',
      path: '/share/:token/list',
      summary: 'A shared folder as JSON',
      public: true,
      module: M,
      params: ZTokenParams,
      query: z.object({ path: z.string().max(4096).default('/'), k: z.string().max(256).default('') }),
      raw: 'download',
      response: z.unknown(),
    }),
    shareDownload: route({
      method: 'GET',
      path: '/share/:token/dl',
      summary: 'A shared file or a file of a shared folder (Range supported)',
      public: true,
      module: M,
      params: ZTokenParams,
      query: z.object({ path: z.string().max(4096).default('/'), k: z.string().max(256).default(''), inline: z.enum(['0', '1']).default('0') }),
      raw: 'download',
      response: z.unknown(),
    }),
    shareZip: route({
      method: 'GET',
      path: '/share/:token/zip',
      summary: 'A shared folder (or a folder inside it) as a zip made while it is sent',
      public: true,
      module: M,
      params: ZTokenParams,
      query: z.object({ path: z.string().max(4096).default('/'), k: z.string().max(256).default('') }),
      raw: 'download',
      response: z.unknown(),
    }),
  },
);
export const filebrowserRoutes = filebrowserContract.routes;
