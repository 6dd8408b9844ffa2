/** Reads one uploaded file: multipart/form-data (the console's uploads) or a raw body (scripts, curl --data-binary). */
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Ret } from '@lucky/contracts';
import { fail } from '../core/envelope.js';

export const MAX_UPLOAD = 128 * 1024 * 1024;

export async function installUploads(app: FastifyInstance): Promise<void> {
  await app.register(multipart, { limits: { files: 1, fileSize: MAX_UPLOAD, fields: 10, parts: 12 } });
  app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer', bodyLimit: MAX_UPLOAD }, (_req, body, done) =>
    done(null, body),
  );
}

function human(n: number): string {
  return n >= 1e6 ? `${Math.round(n / 1e6)} MB` : `${Math.round(n / 1e3)} kB`;
}

export async function readUpload(req: FastifyRequest, maxBytes: number): Promise<{ name: string; data: Buffer }> {
  if (req.isMultipart()) {
    const file = await req.file({ limits: { fileSize: maxBytes } });
    if (!file) throw fail(Ret.badRequest, 'uploadMissing');
    const data = await file.toBuffer().catch((err: { code?: string }) => {
      if (err.code === 'FST_REQ_FILE_TOO_LARGE') throw fail(Ret.badRequest, 'uploadTooLarge', { max: human(maxBytes) });
      throw err;
    });
    return { name: file.filename, data };
  }
  const body = req.body;
  if (Buffer.isBuffer(body) && body.length > 0) {
    if (body.length > maxBytes) throw fail(Ret.badRequest, 'uploadTooLarge', { max: human(maxBytes) });
    const q = req.query as { name?: string } | undefined;
    return { name: typeof q?.name === 'string' ? q.name : 'upload', data: body };
  }
  if (typeof body === 'object' && body !== null && !Buffer.isBuffer(body)) {
    // A JSON body posted where a file is expected: treat its text as the file (backups are JSON).
    return { name: 'upload.json', data: Buffer.from(JSON.stringify(body)) };
  }
  throw fail(Ret.badRequest, 'uploadMissing');
}
