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
import { maintenanceRoutes } from './system/maintenance.routes.js';
import { metricsRoutes } from './system/metrics.routes.js';
import { oidcRoutes } from './security/oidc.routes.js';
import { installUploads } from './system/upload.js';
import { installAudit } from './security/audit.js';
import { safeRoutes } from './security/safe.routes.js';
import { decideAccess } from './security/access.js';
import { safeUrlRewriter, safeUrlRoutes } from './security/safeurl.js';

export interface BuildOptions {
  /** Receives the request handler so the listener can serve it on sockets it owns. */
  serverFactory?: FastifyServerFactory;
}

function noJsonSchemas(): never {
  throw new Error('routes are validated with the contracts (zod); a Fastify JSON schema is not supported here');
}

export async function buildApp(deps: AppDeps, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({
    loggerInstance: deps.programLog.logger.child({ mod: 'http' }) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 1024 * 1024,
    // Generous but bounded: a slow client must not hold a request forever.
    requestTimeout: 60_000,
    rewriteUrl: safeUrlRewriter(deps.config),
    // Routes are validated with the contracts' zod schemas (core/routes.ts) and declare no JSON
    // schema: Fastify's own compilers (ajv, fast-json-stringify: ~0.6 MB of code) are never loaded.
    schemaController: { compilersFactory: { buildValidator: noJsonSchemas, buildSerializer: noJsonSchemas } },
    ...(opts.serverFactory ? { serverFactory: opts.serverFactory } : {}),
  });
  installEnvelope(app);
  await installUploads(app);
  installAuth(app, { ...deps, decideAccess });
  installAudit(app, deps.audit);
  safeUrlRoutes(app, deps.config);
  authRoutes(app, deps);
  settingsRoutes(app, deps);
  systemRoutes(app, deps);
  safeRoutes(app, deps);
  oidcRoutes(app, deps);
  maintenanceRoutes(app, deps);
  metricsRoutes(app, deps);
  deps.modules.routes(app, MODULE_KEYS);
  await consoleFiles(app, deps.consoleDir);
  await app.ready();
  return app;
}
