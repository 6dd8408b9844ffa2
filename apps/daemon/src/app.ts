/** Builds the Fastify app from running parts; it never listens (tests use inject, main.ts listens). */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyServerFactory } from 'fastify';
import { MODULE_KEYS } from '@lucky/contracts';
import { installAuth } from './core/auth.js';
import { installEnvelope } from './core/envelope.js';
import type { AppDeps } from './deps.js';
import { authRoutes } from './system/auth.routes.js';
import { settingsRoutes } from './system/settings.routes.js';
import { consoleFiles } from './system/static.js';
import { systemRoutes } from './system/system.routes.js';

export interface BuildOptions {
  /** Receives the request handler so the listener can serve it on sockets it owns. */
  serverFactory?: FastifyServerFactory;
}

export async function buildApp(deps: AppDeps, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({
    loggerInstance: deps.programLog.logger.child({ mod: 'http' }) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 1024 * 1024,
    // Generous but bounded: a slow client must not hold a request forever.
    requestTimeout: 60_000,
    ...(opts.serverFactory ? { serverFactory: opts.serverFactory } : {}),
  });
  installEnvelope(app);
  installAuth(app, deps);
  authRoutes(app, deps);
  settingsRoutes(app, deps);
  systemRoutes(app, deps);
  deps.modules.routes(app, MODULE_KEYS);
  await consoleFiles(app, deps.consoleDir);
  await app.ready();
  return app;
}
