/**
 * The console's built files: a few dozen, read from one directory. index.html is never cached;
 * hashed assets are cached for good; an unchanged file answers 304 to its ETag. Served here rather
 * than by @fastify/static, whose file globbing and send stack cost the idle daemon about 1 MB.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createReadStream, existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { contentTypeOf } from '../lib/http/files.js';


/** The file a URL path names inside `root`, or undefined (outside it, a NUL, bad escapes). */
export function fileOf(root: string, urlPath: string): string | undefined {
  let path: string;
  try {
    path = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (path.includes('\0') || path.includes('\\')) return undefined;
  const file = resolve(root, '.' + (path.endsWith('/') ? path + 'index.html' : path));
  return file.startsWith(root + sep) ? file : undefined;
}

export async function consoleFiles(app: FastifyInstance, dir: string): Promise<void> {
  if (!existsSync(join(dir, 'index.html'))) {
    app.get('/', async (_req, reply) =>
      reply.type('text/html; charset=utf-8').send('<!doctype html><title>Lucky</title><p>The console is not built. Run <code>npm start</code> from the project root.</p>'),
    );
    return;
  }
  const root = resolve(dir);
  app.get('/*', async (req: FastifyRequest, reply: FastifyReply) => {
    const urlPath = req.url.split('?')[0]!;
    const file = urlPath.startsWith('/api/') ? undefined : fileOf(root, urlPath);
    const st = file ? await stat(file).catch(() => undefined) : undefined;
    if (!file || !st?.isFile()) return reply.callNotFound();
    const etag = `W/"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
    reply.header('etag', etag).header('last-modified', st.mtime.toUTCString());
    if (file.endsWith('.html')) reply.header('cache-control', 'no-cache');
    else if (file.includes(`${sep}assets${sep}`)) reply.header('cache-control', 'public, max-age=31536000, immutable');
    if (req.headers['if-none-match'] === etag) return reply.code(304).send();
    reply.type(contentTypeOf(file)).header('content-length', st.size);
    return reply.send(req.method === 'HEAD' ? undefined : createReadStream(file));
  });
}
