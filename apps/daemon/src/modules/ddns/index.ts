/** Dynamic DNS: tasks kept as rules, synced by the engine, with history in lucky.db. */
import {
  DDNS_PROVIDER_INFO,
  DDNS_PROVIDERS,
  Ret,
  SECRET_MASK,
  ZDdnsConfigure,
  ZDdnsTask,
  ddnsRoutes,
  message,
  type DdnsProviderName,
  type DdnsTask,
} from '@lucky/contracts';
import { RuleLogs } from '../../core/engine.js';
import { AppError, fail } from '../../core/envelope.js';
import type { Db } from '../../core/db.js';
import type { Logger } from '../../core/logs.js';
import type { ModuleDef } from '../../core/modulehost.js';
import { RuleModule } from '../../core/rulemodule.js';
import { RuleStore, SettingsStore } from '../../core/rulestore.js';
import { addRoute } from '../../core/routes.js';
import { DdnsEngine } from './ddns.engine.js';
import { DdnsHistory, ddnsMigrations } from './ddns.history.js';
import { getIp } from './ipsource.js';
import { CALLBACK_PRESET_VALUES } from './providers/callback.js';
import { WEBHOOK_PRESET_VALUES, callWebhook } from './webhook.js';

/** Where a task keeps secrets: shown masked, and a mask saved back keeps the stored value. */
const SECRET_PATHS: Array<(t: DdnsTask) => { get(): string; set(v: string): void }> = [
  (t) => ({ get: () => t.credentials.secret, set: (v) => void (t.credentials.secret = v) }),
  (t) => ({ get: () => t.proxy.password, set: (v) => void (t.proxy.password = v) }),
  (t) => ({ get: () => t.webhook.proxy.password, set: (v) => void (t.webhook.proxy.password = v) }),
];

export function maskTask(t: DdnsTask): Pick<DdnsTask, 'credentials' | 'proxy' | 'webhook'> {
  const copy = structuredClone({ credentials: t.credentials, proxy: t.proxy, webhook: t.webhook }) as DdnsTask;
  for (const p of SECRET_PATHS) {
    const f = p(copy);
    if (f.get()) f.set(SECRET_MASK);
  }
  return { credentials: copy.credentials, proxy: copy.proxy, webhook: copy.webhook };
}

/** A mask sent back keeps the stored secret; a mask with nothing behind it is refused like an empty secret. */
function keepSecrets(input: DdnsTask, previous: DdnsTask | undefined): DdnsTask {
  const next = structuredClone(input);
  for (const p of SECRET_PATHS) {
    const f = p(next);
    if (f.get() === SECRET_MASK) f.set(previous ? p(previous).get() : '');
  }
  const again = ZDdnsTask.safeParse(next);
  if (!again.success) throw new AppError(Ret.badRequest, 'ddnsSecretMissing');
  return again.data;
}

/** Deleting a task deletes its history too. */
class DdnsStore extends RuleStore<typeof ZDdnsTask> {
  constructor(
    db: Db,
    log: Logger,
    private history: DdnsHistory,
  ) {
    super(db, 'ddns', ZDdnsTask, log);
  }

  override remove(key: string): boolean {
    this.history.drop(key);
    return super.remove(key);
  }
}

/** Provider endpoints for tests and the benchmark only (`LUCKY_DDNS_TEST_ENDPOINTS`, JSON), never in production. */
function testEndpoints(log: Logger): Partial<Record<DdnsProviderName, string>> | undefined {
  const raw = process.env.LUCKY_DDNS_TEST_ENDPOINTS;
  if (!raw) return undefined;
  if (!process.env.VITEST && process.env.NODE_ENV !== 'test') {
    log.warn('LUCKY_DDNS_TEST_ENDPOINTS is ignored outside tests');
    return undefined;
  }
  return JSON.parse(raw) as Partial<Record<DdnsProviderName, string>>;
}

export const ddnsModule: ModuleDef = {
  key: 'ddns',
  migrations: ddnsMigrations,
  data: { rule: ZDdnsTask, settings: ZDdnsConfigure },
  create({ db, log }) {
    const history = new DdnsHistory(db);
    const logs = new RuleLogs(256);
    const endpoints = testEndpoints(log);
    const engine = new DdnsEngine({ log, logs, history, ...(endpoints ? { endpoints } : {}) });
    const settings = new SettingsStore(db, 'ddns', ZDdnsConfigure);
    const rules = new RuleModule({
      store: new DdnsStore(db, log, history),
      settings,
      engine,
      log,
      logs,
      prepare: keepSecrets,
      present: (t) => ({ ...t, ...maskTask(t) }),
      extra: (r) => ({ sync: engine.syncState(r.key, r.data) }),
      onSettings: (next) => engine.configure(next),
      // The global webhook's proxy password is a secret like a task's.
      settingsView: (c) =>
        c.webhook.proxy.password ? { ...c, webhook: { ...c.webhook, proxy: { ...c.webhook.proxy, password: SECRET_MASK } } } : c,
      settingsMerge: (next, stored) =>
        next.webhook.proxy.password === SECRET_MASK
          ? { ...next, webhook: { ...next.webhook, proxy: { ...next.webhook.proxy, password: stored.webhook.proxy.password } } }
          : next,
    });
    return {
      routes(app) {
        rules.register(app, ddnsRoutes);
        addRoute(app, ddnsRoutes.sync, async ({ params, query, req }) => {
          const rule = rules.require(params.key);
          if (!rule.data.enable) throw fail(Ret.failed, 'ddnsTaskDisabled');
          const r = await engine.syncNow(params.key, query.wait * 1000);
          if (!r) throw fail(Ret.failed, 'ddnsNotRunning');
          return { msg: message(req.lang, r.done ? 'ddnsSyncDone' : 'ddnsSyncRunning'), done: r.done, sync: r.sync };
        });
        addRoute(app, ddnsRoutes.history, ({ params, query }) => {
          rules.require(params.key);
          return { history: history.list(params.key, query.limit) };
        });
        addRoute(app, ddnsRoutes.ipTest, async ({ body }) => {
          const http = engine.http.client({ timeoutMs: body.httpTimeout * 1000, proxy: body.proxy, skipVerify: body.skipVerify });
          try {
            const r = await getIp(body.family, body.source, { http });
            return { ip: r.ip, detail: r.detail };
          } catch (err) {
            throw new AppError(Ret.failed, null, {}, (err as Error).message);
          }
        });
        addRoute(app, ddnsRoutes.webhookTest, async ({ body }) => {
          const http = engine.http.client({ timeoutMs: body.httpTimeout * 1000, proxy: body.webhook.proxy, skipVerify: body.skipVerify });
          const r = await callWebhook(
            body.webhook,
            { ipAddr: '192.0.2.1,2001:db8::1', successDomains: ['example.com', 'www.example.com'], failedDomains: ['failed.example.com'] },
            http,
          );
          return { success: r.success, status: r.status, body: r.body, msg: r.message };
        });
        addRoute(app, ddnsRoutes.providers, () => ({
          providers: DDNS_PROVIDERS.map((name) => ({ name, ...DDNS_PROVIDER_INFO[name] })),
          webhookPresets: WEBHOOK_PRESET_VALUES,
          callbackPresets: CALLBACK_PRESET_VALUES,
        }));
      },
      async start() {
        engine.configure(settings.get());
        engine.begin();
        await rules.startAll();
      },
      stop: () => rules.stopAll(),
      connections: () => 0,
    };
  },
};
