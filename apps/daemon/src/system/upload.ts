/**
 * Reads one uploaded file: multipart/form-data (the console's uploads) or a raw body (scripts, curl
 * --data-binary), into memory for small files or streamed to a file for large ones, never past its bound.
 */
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Ret } from '@lucky/contracts';
import { fail } from '../core/envelope.js';

export const MAX_UPLOAD = 128 * 1024 * 1024;

export async function installUploads(app: FastifyInstance): Promise<void> {
  await app.register(multipart, { limits: { files: 1, fileSize: MAX_UPLOAD, fields: 10, parts: 12 } });
  // Handed on unread: each route reads with its own bound, and one refused before its handler
  // (not logged in) never has its body read into memory at all.
  app.addContentTypeParser('application/octet-stream', (_req, payload, done) => done(null, payload));
}

export function human(n: number): string {
  return n >= 1e6 ? `${Math.round(n / 1e6)} MB` : `${Math.round(n / 1e3)} kB`;
}

interface OpenUpload {
  name: string;
  stream: Readable;
  /** Multipart files are cut at the bound by the parser, which says so here. */
  truncated(): boolean;
  /** An empty raw body means no file was sent; an empty multipart file is a file. */
  emptyIsMissing: boolean;
}

async function openUpload(req: FastifyRequest, maxBytes: number): Promise<OpenUpload> {
  if (req.isMultipart()) {
    const file = await req.file({ limits: { fileSize: maxBytes } });
    if (!file) throw fail(Ret.badRequest, 'uploadMissing');
    return { name: file.filename, stream: file.file, truncated: () => file.file.truncated, emptyIsMissing: false };
  }
  const body = req.body;
  if (body instanceof Readable) {
    const q = req.query as { name?: string } | undefined;
    return { name: typeof q?.name === 'string' ? q.name : 'upload', stream: body, truncated: () => false, emptyIsMissing: true };
  }
  if (typeof body === 'object' && body !== null) {
    // A JSON body posted where a file is expected: treat its text as the file (backups are JSON).
    const data = Buffer.from(JSON.stringify(body));
    return { name: 'upload.json', stream: Readable.from([data]), truncated: () => false, emptyIsMissing: true };
  }
  throw fail(Ret.badRequest, 'uploadMissing');
}

/**
 * Copies the upload into `sink` and answers its size. Past `maxBytes` it answers uploadTooLarge;
 * the rest of the request is then read and dropped rather than cut off, so the answer still
 * reaches a client that is still sending.
 */
async function copyBounded(up: OpenUpload, sink: Writable, maxBytes: number): Promise<number> {
  let size = 0;
  const tooLarge = () => fail(Ret.badRequest, 'uploadTooLarge', { max: human(maxBytes) });
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      done(size > maxBytes ? tooLarge() : null, chunk);
    },
  });
  // pipe, not pipeline: a failure must not destroy the request, or the answer could not be sent.
  up.stream.on('error', (err) => counter.destroy(err));
  up.stream.pipe(counter);
  try {
    await pipeline(counter, sink);
  } catch (err) {
    up.stream.unpipe(counter);
    up.stream.resume();
    throw err;
  }
  if (up.truncated()) throw tooLarge();
  if (size === 0 && up.emptyIsMissing) throw fail(Ret.badRequest, 'uploadMissing');
  return size;
}

/** A small upload, whole in memory. */
export async function readUpload(req: FastifyRequest, maxBytes: number): Promise<{ name: string; data: Buffer }> {
  const up = await openUpload(req, maxBytes);
  const chunks: Buffer[] = [];
  const collect = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk);
      done();
    },
  });
  await copyBounded(up, collect, maxBytes);
  return { name: up.name, data: Buffer.concat(chunks) };
}

export interface SavedUpload {
  name: string;
  /** A file of its own in `dir`: the caller removes it when done. */
  path: string;
  size: number;
}

/** A large upload, streamed to a new file in `dir` (removed again if the upload fails). */
export async function saveUpload(req: FastifyRequest, maxBytes: number, dir: string): Promise<SavedUpload> {
  const up = await openUpload(req, maxBytes);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `upload-${randomBytes(8).toString('hex')}`);
  try {
    const size = await copyBounded(up, createWriteStream(path, { flags: 'wx', mode: 0o600 }), maxBytes);
    return { name: up.name, path, size };
  } catch (err) {
    await rm(path, { force: true });
    throw err;
  }
}
