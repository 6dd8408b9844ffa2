/**
 * The safe entry path: with a secret prefix set, the console and the API live only under
 * /<prefix>/; anything else gets the bare 404 of an empty server.
 */
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { BaseConfigStore } from '../core/baseconfig.js';

const HIDDEN = '/__lucky/hidden';
const ADD_SLASH = '/__lucky/add-slash';

export function safeUrlRewriter(config: BaseConfigStore): (req: IncomingMessage) => string {
  return (req) => {
    const url = req.url ?? '/';
    const safe = config.get().SafeURL;
    if (!safe) return url;
    const prefix = `/${safe}`;
    const path = url.split('?')[0]!;
    if (path === prefix) return ADD_SLASH;
    if (url.startsWith(prefix + '/')) return url.slice(prefix.length);
    return HIDDEN;
  };
}

export function safeUrlRoutes(app: FastifyInstance, config: BaseConfigStore): void {
  app.all(HIDDEN, { config: { bypassAuth: true } }, async (_req, reply) => reply.code(404).type('text/plain').send('404 page not found'));
  // Relative asset and API paths need the trailing slash.
  app.get(ADD_SLASH, { config: { bypassAuth: true } }, async (_req, reply) => reply.redirect(`/${config.get().SafeURL}/`, 302));
}
