/** Status, logs, GC, interfaces, info, the info feed, restart, the OpenAPI document, and the calls still to come. */
import type { FastifyInstance } from 'fastify';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { hostname } from 'node:os';
import { API, Ret, buildOpenApi, coreRoutes, message } from '@lucky/contracts';
import { AppError, fail } from '../core/envelope.js';
import { listInterfaces, pickAddresses } from '../core/netinfo.js';
import { sayer } from '../core/logs.js';
import { addRoute } from '../core/routes.js';
import type { AppDeps } from '../deps.js';
import { InfoFeedReader } from './infofeed.js';

/** gc() without starting Node with --expose-gc. */
function gcFunction(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

const memory = () => {
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers };
};

export function systemRoutes(app: FastifyInstance, deps: AppDeps): void {
  addRoute(app, coreRoutes.status, () => ({ data: deps.status.read() }));

  let gc: (() => void) | undefined;
  addRoute(app, coreRoutes.execGc, ({ req }) => {
    gc ??= gcFunction();
    const before = memory();
    gc();
    const after = memory();
    sayer(req.log).info({ key: 'logGc', vars: { freed: before.heapUsed - after.heapUsed } });
    return { msg: message(req.lang, 'gcDone'), before, after };
  });

  addRoute(app, coreRoutes.logs, ({ query, req }) => ({
    starttime: deps.programLog.starttime,
    logs: deps.programLog.read(query.pre, req.lang),
  }));

  addRoute(app, coreRoutes.netInterfaces, () => ({ interfaces: listInterfaces() }));

  addRoute(app, coreRoutes.ipRegTest, ({ query }) => {
    const iface = listInterfaces().find((i) => i.name === query.netinterface);
    if (!iface) throw fail(Ret.notFound, 'interfaceNotFound', { name: query.netinterface });
    try {
      const { candidates, matches } = pickAddresses(iface, query.iptype, query.ipreg);
      return { ip: matches[0] ?? '', matches, candidates };
    } catch (err) {
      throw new AppError(Ret.badRequest, 'invalidRegex', { detail: (err as Error).message });
    }
  });

  addRoute(app, coreRoutes.info, () => ({
    info: {
      version: deps.version,
      node: process.versions.node,
      platform: process.platform,
      arch: process.arch,
      hostname: hostname(),
      pid: process.pid,
      startTime: deps.programLog.starttime,
      dataDir: deps.dataDir,
      configFile: deps.config.file,
      execPath: process.execPath,
      supervisor: deps.supervisor,
      listen: deps.listenAddress(),
    },
  }));

  const feed = new InfoFeedReader({ config: deps.config, version: deps.version, say: sayer(app.log) });
  app.addHook('onClose', () => feed.close());
  addRoute(app, coreRoutes.infoFeed, async ({ query, req }) => ({ feed: await feed.state(req.lang, query.refresh === '1') }));

  // What a caller may do: the multi-device admin asks a device what its token is for.
  addRoute(app, coreRoutes.whoami, ({ req }) => {
    const account = req.session?.account ?? deps.config.get().AdminAccount;
    if (req.apiToken) return { account, via: 'token' as const, name: req.apiToken.name, scope: req.apiToken.scope };
    return { account, via: 'session' as const, name: '', scope: 'full' as const };
  });

  addRoute(app, coreRoutes.rebootProgram, ({ req, reply }) => {
    sayer(req.log).warn({ key: 'logRestartRequested' }, { ip: req.ip });
    reply.raw.once('finish', () => deps.restart());
    return { msg: message(req.lang, 'restarting') };
  });

  let openapi: Record<string, unknown> | undefined;
  addRoute(app, coreRoutes.openapi, ({ reply }) =>
    reply.type('application/json; charset=utf-8').send((openapi ??= buildOpenApi(API, deps.version))),
  );

  addRoute(app, coreRoutes.v2l, () => {
    throw fail(Ret.notAvailable, 'v2lUnsupported');
  });
}
