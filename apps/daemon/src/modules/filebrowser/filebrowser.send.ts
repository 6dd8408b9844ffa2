/**
 * Sending files and zips: a file with single byte ranges (resumed downloads, media players seeking),
 * a zip made while it is sent. Every answer is sandboxed: a shared or previewed HTML or SVG file is
 * shown as an opaque origin and never runs as the console (where the session token lives).
 */
import { createReadStream, type Stats } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { ResolvedPath } from '../../core/services/storages.js';
import { zipSources } from './filebrowser.fs.js';
import { zipStream } from './filebrowser.zip.js';

const MIME: Record<string, string> = {
  txt: 'text/plain; charset=utf-8', md: 'text/plain; charset=utf-8', log: 'text/plain; charset=utf-8', csv: 'text/csv; charset=utf-8',
  json: 'application/json', xml: 'application/xml', pdf: 'application/pdf',
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', avif: 'image/avif', bmp: 'image/bmp', ico: 'image/x-icon',
  svg: 'image/svg+xml', html: 'text/html; charset=utf-8', htm: 'text/html; charset=utf-8',
  mp3: 'audio/mpeg', m4a: 'audio/mp4', ogg: 'audio/ogg', opus: 'audio/ogg', flac: 'audio/flac', wav: 'audio/wav', aac: 'audio/aac',
  mp4: 'video/mp4', m4v: 'video/mp4', webm: 'video/webm', mkv: 'video/x-matroska', mov: 'video/quicktime',
  zip: 'application/zip', gz: 'application/gzip',
};

export function mimeOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return (dot === -1 ? undefined : MIME[name.slice(dot + 1).toLowerCase()]) ?? 'application/octet-stream';
}

/** `attachment; filename="ascii"; filename*=UTF-8''…` (RFC 6266 / 8187): every browser gets the real name. */
export function contentDisposition(kind: 'attachment' | 'inline', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\%]/g, '_') || 'download';
  const star = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${star}`;
}

const SAFE_HEADERS = {
  'content-security-policy': "sandbox; default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'",
  'x-content-type-options': 'nosniff',
  'cache-control': 'private, no-cache',
};

const etagOf = (s: Stats) => `"${s.ino.toString(16)}-${s.size.toString(16)}-${Math.floor(s.mtimeMs).toString(16)}"`;

/** A file, whole or one byte range of it, streamed. */
export function sendFile(req: IncomingMessage, reply: FastifyReply, real: string, s: Stats, name: string, inline: boolean, head = false): FastifyReply {
  let mime = mimeOf(name);
  // Inline HTML would render as a page of the console's origin (sandboxed anyway): shown as text.
  if (inline && /^(text\/html|image\/svg)/.test(mime)) mime = 'text/plain; charset=utf-8';
  const etag = etagOf(s);
  let start = 0;
  let last = s.size - 1;
  let status = 200;
  const range = req.headers.range;
  const ifRange = req.headers['if-range'];
  const m = range && (!ifRange || ifRange === etag) ? /^bytes=(\d*)-(\d*)$/.exec(range.trim()) : null;
  if (m && (m[1] || m[2])) {
    if (m[1]) {
      start = Number(m[1]);
      if (m[2]) last = Math.min(Number(m[2]), s.size - 1);
    } else start = Math.max(0, s.size - Number(m[2]));
    if (start >= s.size || start > last) {
      return reply.code(416).headers({ ...SAFE_HEADERS, 'content-range': `bytes */${s.size}` }).send('');
    }
    status = 206;
  }
  reply.code(status).headers({
    ...SAFE_HEADERS,
    'content-type': mime,
    'content-disposition': contentDisposition(inline ? 'inline' : 'attachment', name),
    'accept-ranges': 'bytes',
    'last-modified': s.mtime.toUTCString(),
    etag,
    'content-length': String(s.size === 0 ? 0 : last - start + 1),
    ...(status === 206 ? { 'content-range': `bytes ${start}-${last}/${s.size}` } : {}),
  });
  if (head || s.size === 0 || req.method === 'HEAD') return reply.send('');
  return reply.send(createReadStream(real, { start, end: last, highWaterMark: 1 << 20 }));
}

/** Files and folders as one zip, made while it is sent (no length: chunked). */
export function sendZip(reply: FastifyReply, items: ResolvedPath[], name: string): FastifyReply {
  const file = name.toLowerCase().endsWith('.zip') ? name : `${name}.zip`;
  reply.code(200).headers({
    ...SAFE_HEADERS,
    'content-type': 'application/zip',
    'content-disposition': contentDisposition('attachment', file),
  });
  return reply.send(Readable.from(zipStream(zipSources(items)), { objectMode: false, highWaterMark: 1 << 20 }));
}
