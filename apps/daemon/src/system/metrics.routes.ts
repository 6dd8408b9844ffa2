/**
 * GET /metrics: the daemon's figures in the Prometheus text format (docs/METRICS.md), on the admin
 * listener beside the console. Read with an API token (any scope: reading is all it does), the
 * console's session, or from an address the operator listed in the settings (MetricsAllowFrom, read
 * on every request, so a change applies at once); anything else gets 401 in the caller's language.
 * The address policy of the console (black/white lists, internet access) still comes first.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Ret, TOKEN_HEADER, message, type MessageKey } from '@lucky/contracts';
import { IpFilter } from '../core/cidr.js';
import { sayer } from '../core/logs.js';
import { Metrics } from '../core/metrics.js';
import type { AppDeps } from '../deps.js';

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

type Verdict = { ok: true } | { ok: false; key: MessageKey; vars?: Record<string, number> };

function bearerOf(req: FastifyRequest): string | undefined {
  const h = req.headers.authorization;
  return h?.startsWith('Bearer ') ? h.slice(7).trim() : undefined;
}

/** Allowed addresses first (a LAN Prometheus sends nothing), then a session or an API token. */
function admit(req: FastifyRequest, deps: AppDeps): Verdict {
  const cfg = deps.config.get();
  if (cfg.MetricsAllowFrom.length > 0 && new IpFilter('whitelist', cfg.MetricsAllowFrom).allows(req.ip)) return { ok: true };
  const h = req.headers[TOKEN_HEADER];
  const session = Array.isArray(h) ? h[0] : h;
  if (session && deps.sessions.check(session, cfg.AdminAccount)) return { ok: true };
  const bearer = bearerOf(req);
  if (!bearer) return { ok: false, key: 'metricsUnauthorized' };
  // Wrong tokens count in the console's lock-out, as on /api: /metrics is no way around it.
  const wait = deps.guard.lockedFor(req.ip);
  if (wait > 0) return { ok: false, key: 'loginLocked', vars: { seconds: wait } };
  if (deps.apiTokens.check(bearer, cfg.AdminAccount)) return { ok: true };
  const lock = deps.guard.fail(req.ip);
  sayer(req.log).warn({ key: 'logTokenRefused', vars: { ip: req.ip } }, { lockSeconds: lock, url: '/metrics' });
  return { ok: false, key: 'metricsUnauthorized' };
}

/** Open file descriptors and their limit, where /proc tells (Linux). */
function fds(): { open: number; max: number } | null {
  try {
    const open = readdirSync('/proc/self/fd').length;
    const limit = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return { open, max: limit ? Number(limit[1]) : NaN };
  } catch {
    return null;
  }
}

function processMetrics(m: Metrics, deps: AppDeps): void {
  const s = deps.status.read().process;
  const cpu = process.cpuUsage();
  m.counter('process_cpu_seconds_total', 'User and system CPU time spent, in seconds.').set({}, (cpu.user + cpu.system) / 1e6);
  m.gauge('process_resident_memory_bytes', 'Resident memory size, in bytes.').set({}, s.memory.rss);
  m.gauge('process_start_time_seconds', 'Start time of the process since the Unix epoch, in seconds.').set({}, s.startTime / 1000);
  const f = fds();
  if (f) {
    m.gauge('process_open_fds', 'Open file descriptors.').set({}, f.open);
    if (Number.isFinite(f.max)) m.gauge('process_max_fds', 'The limit of open file descriptors.').set({}, f.max);
  }
  m.gauge('nodejs_heap_size_used_bytes', 'V8 heap in use, in bytes.').set({}, s.memory.heapUsed);
  m.gauge('nodejs_heap_size_total_bytes', 'V8 heap reserved, in bytes.').set({}, s.memory.heapTotal);
  m.gauge('nodejs_external_memory_bytes', 'Memory of objects outside the V8 heap (buffers, native parts), in bytes.').set({}, s.memory.external);
  const lag = m.gauge('nodejs_eventloop_lag_seconds', 'Event-loop delay over the last sampling window, in seconds.');
  const d = s.eventLoopDelay;
  for (const [stat, ms] of [['mean', d.mean], ['p50', d.p50], ['p99', d.p99], ['max', d.max]] as const) lag.set({ stat }, ms / 1000);
  m.gauge('lucky_build_info', 'This daemon\'s version and the Node.js it runs on; always 1.').set({ version: deps.version, node: process.versions.node }, 1);
}

/** The certificate store is the daemon's own (the ACME module fills it): its expiry per certificate. */
async function certificateMetrics(m: Metrics, deps: AppDeps): Promise<void> {
  const certs = (await deps.modules.service('certificates')).list();
  const at = m.gauge('lucky_certificate_expiry_timestamp_seconds', 'When a certificate of the store expires, since the Unix epoch, in seconds.');
  const left = m.gauge('lucky_certificate_expires_in_seconds', 'Seconds until a certificate of the store expires (negative once it has).');
  const now = Date.now();
  for (const c of certs) {
    at.set({ name: c.name }, Math.floor(c.notAfter / 1000));
    left.set({ name: c.name }, Math.floor((c.notAfter - now) / 1000));
  }
}

async function scrape(deps: AppDeps): Promise<string> {
  const m = new Metrics();
  const t0 = performance.now();
  processMetrics(m, deps);
  await certificateMetrics(m, deps);
  await deps.modules.metrics(m);
  m.gauge('lucky_metrics_scrape_duration_seconds', 'How long this scrape took to collect, in seconds.').set({}, (performance.now() - t0) / 1000);
  return m.render();
}

export function metricsRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get('/metrics', async (req: FastifyRequest, reply: FastifyReply) => {
    const verdict = admit(req, deps);
    if (!verdict.ok) {
      req.ret = Ret.sessionInvalid;
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer realm="lucky"')
        .type('application/json; charset=utf-8')
        .send({ ret: Ret.sessionInvalid, msg: message(req.lang, verdict.key, verdict.vars) });
    }
    return reply.type(METRICS_CONTENT_TYPE).header('cache-control', 'no-store').send(await scrape(deps));
  });
}
