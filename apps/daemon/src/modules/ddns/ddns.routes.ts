/** The module's own routes: sync now, history, the IP source and webhook tests, the provider list. */
import {
  DDNS_PROVIDERS,
  ddnsProviderListing,
  Ret,
  renderMsg,
  type ddnsContract,
  type DdnsTask,
  type Msg,
} from '@lucky/contracts';
import { AppError, fail, failedWith } from '../../core/envelope.js';
import type { OwnHandlers } from '../../core/module.js';
import type { StoredRule } from '../../core/rulestore.js';
import { CALLBACK_PRESET_VALUES } from '../../lib/dns/providers/callback.js';
import type { WebhookMessage } from '../../lib/webhook/webhook.js';
import { DdnsHistory } from './ddns.history.js';
import { presentSync, type DdnsFigures } from './ddns.view.js';
import type { DdnsContext } from './index.js';

/** What the push-service presets say after a sync (templates of the webhook's values). */
const WEBHOOK_MESSAGE: WebhookMessage = {
  title: 'Lucky DDNS #{ipAddr}',
  text: 'Lucky DDNS #{time}\nIP: #{ipAddr}\nOK: #{successDomainsLine}\nFailed: #{failedDomainsLine}',
};
/** What the "test" button fills the webhook with. */
const WEBHOOK_SAMPLE = { ipAddr: '192.0.2.1,2001:db8::1', successDomains: ['example.com', 'www.example.com'], failedDomains: ['failed.example.com'] };

/** Syncs a task now (forced) and waits up to `waitMs`; "run now" of the actions service too. */
export async function syncTask(task: StoredRule<DdnsTask>, mod: DdnsContext, waitMs: number): Promise<{ done: boolean; figures: DdnsFigures; line: Msg }> {
  if (!task.data.enable) throw fail(Ret.failed, 'ddnsTaskDisabled');
  const r = await (await mod.engine()).syncNow(task.key, waitMs);
  if (!r) throw fail(Ret.failed, 'ddnsNotRunning');
  return { ...r, line: { key: r.done ? 'ddnsSyncDone' : 'ddnsSyncRunning' } };
}

export function ddnsRoutes(mod: DdnsContext): OwnHandlers<typeof ddnsContract> {
  const history = new DdnsHistory(mod.db);
  return {
    sync: async ({ params, query, req }) => {
      const r = await syncTask(mod.rules.require(params.key), mod, query.wait * 1000);
      return { msg: renderMsg(req.lang, r.line), done: r.done, sync: presentSync(r.figures, req.lang) };
    },
    history: ({ params, query, req }) => {
      mod.rules.require(params.key);
      return { history: history.list(params.key, query.limit, req.lang) };
    },
    ipTest: async ({ body, req }) => {
      const engine = await mod.engine();
      try {
        const r = await engine.testSource(body.family, body.source, { timeoutMs: body.httpTimeout * 1000, proxy: body.proxy, skipVerify: body.skipVerify });
        return { ip: r.ip, detail: renderMsg(req.lang, r.detail) };
      } catch (err) {
        throw failedWith(err);
      }
    },
    webhookTest: async ({ body, req }) => {
      const r = await mod.services.webhooks.test(body.webhook, WEBHOOK_SAMPLE, { timeoutMs: body.httpTimeout * 1000, skipVerify: body.skipVerify });
      return { success: r.success, status: r.status, body: r.body, msg: renderMsg(req.lang, r.reason) };
    },
    providers: ({ req }) => ({
      providers: DDNS_PROVIDERS.map((name) => ddnsProviderListing(name, req.lang)),
      webhookPresets: mod.services.webhooks.presets(WEBHOOK_MESSAGE),
      callbackPresets: CALLBACK_PRESET_VALUES,
    }),
  };
}
