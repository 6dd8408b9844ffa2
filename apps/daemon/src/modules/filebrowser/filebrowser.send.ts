/**
 * Sending files and zips: a file with single byte ranges (resumed downloads, media players seeking),
 * a zip made while it is sent. Every answer is sandboxed: a shared or previewed HTML or SVG file is
 * shown as an opaque origin and never runs as the console (where the session token lives).
 */
import type { Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { sendFileBody } from '../../core/filebody.js';
import { sendRemoteRange } from '../../core/remotebody.js';
import type { RemoteFs } from '../../core/services/storages.js';
import { contentTypeOf, parseRange } from '../../lib/http/files.js';
import { zipStream, type ZipSource } from './filebrowser.zip.js';

/** Where a file's bytes come from: a file on disk, or a remote storage's file. */
export type Body = { real: string } | { remote: RemoteFs; path: string };

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

/**
 * A file, whole or one byte range of it: by sendfile on a plain connection (`native`, the daemon's
 * env.nativeRelay), else streamed; a remote's range passed on by the relay or streamed as it comes
 * (core/remotebody.ts).
 */
export async function sendFile(req: IncomingMessage, reply: FastifyReply, from: Body, s: Stats, name: string, inline: boolean, native: boolean): Promise<FastifyReply> {
  let mime = contentTypeOf(name);
  // Inline HTML would render as a page of the console's origin (sandboxed anyway): shown as text.
  if (inline && /^(text\/html|image\/svg)/.test(mime)) mime = 'text/plain; charset=utf-8';
  const etag = etagOf(s);
  let start = 0;
  let last = s.size - 1;
  let status = 200;
  const range = req.headers.range;
  const ifRange = req.headers['if-range'];
  if (range && (!ifRange || ifRange === etag)) {
    const r = parseRange(range, s.size);
    if (r === 'bad') return reply.code(416).headers({ ...SAFE_HEADERS, 'content-range': `bytes */${s.size}` }).send('');
    if (r) {
      start = r.start;
      last = r.end;
      status = 206;
    }
  }
  const length = s.size === 0 ? 0 : last - start + 1;
  const headers = {
    ...SAFE_HEADERS,
    'content-type': mime,
    'content-disposition': contentDisposition(inline ? 'inline' : 'attachment', name),
    'accept-ranges': 'bytes',
    'last-modified': s.mtime.toUTCString(),
    etag,
    'content-length': String(length),
    ...(status === 206 ? { 'content-range': `bytes ${start}-${last}/${s.size}` } : {}),
  };
  if (length === 0) return reply.code(status).headers(headers).send('');
  if (req.method === 'HEAD') {
    // Fastify would put the length of its empty payload in Content-Length; Node keeps ours.
    reply.hijack();
    reply.raw.writeHead(status, headers).end();
    return reply;
  }
  if ('remote' in from) {
    // Asked before the head: a remote that does not answer is still an answer of the API, not a cut connection.
    await sendRemoteRange(req, reply.raw, from.remote, from.path, { start, last }, { status, headers, beforeHead: () => reply.hijack() }, { native });
    return reply;
  }
  // Opened first: a file that cannot be read is still an answer of the API, not a cut connection.
  const file = await open(from.real, 'r');
  // The body leaves around Fastify (sendfile on Node's connection, or a stream of the same file).
  reply.hijack();
  reply.raw.writeHead(status, headers);
  await sendFileBody(req, reply.raw, file, start, length, { native });
  return reply;
}

/** Files and folders as one zip, made while it is sent (no length: chunked). */
export function sendZip(reply: FastifyReply, sources: AsyncIterable<ZipSource>, name: string): FastifyReply {
  const file = name.toLowerCase().endsWith('.zip') ? name : `${name}.zip`;
  reply.code(200).headers({
    ...SAFE_HEADERS,
    'content-type': 'application/zip',
    'content-disposition': contentDisposition('attachment', file),
  });
  return reply.send(Readable.from(zipStream(sources), { objectMode: false, highWaterMark: 1 << 20 }));
}
