/** The console's built files. index.html is never cached; hashed assets are cached for good. */
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export async function consoleFiles(app: FastifyInstance, dir: string): Promise<void> {
  if (!existsSync(join(dir, 'index.html'))) {
    app.get('/', async (_req, reply) =>
      reply.type('text/html; charset=utf-8').send('<!doctype html><title>Lucky</title><p>The console is not built. Run <code>npm start</code> from the project root.</p>'),
    );
    return;
  }
  await app.register(fastifyStatic, {
    root: dir,
    wildcard: false,
    index: ['index.html'],
    setHeaders(res, path) {
      if (path.endsWith('.html')) res.setHeader('cache-control', 'no-cache');
      else if (path.includes('/assets/')) res.setHeader('cache-control', 'public, max-age=31536000, immutable');
    },
  });
}
