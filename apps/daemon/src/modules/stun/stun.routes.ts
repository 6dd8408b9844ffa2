/** The module's own routes: the NAT behaviour test, recheck, the webhook test, what a rule can refer to. */
import { Ret, renderMsg, type stunContract, type WebhookPreset } from '@lucky/contracts';
import { fail, failedWith } from '../../core/envelope.js';
import type { OwnHandlers } from '../../core/module.js';
import type { WebhookMessage } from '../../lib/webhook/webhook.js';
import type { StunContext } from './index.js';
import { present } from './stun.view.js';

const WEBHOOK_MESSAGE: WebhookMessage = {
  title: 'Lucky STUN #{ruleName}: #{addr}',
  text: 'Lucky STUN #{time}\n#{ruleName} (#{protocol}, local port #{localPort})\nPublic address: #{addr}',
};
/** What the "test" button fills the webhook with (documentation addresses). */
const WEBHOOK_SAMPLE = { ip: '203.0.113.7', port: 40123, addr: '203.0.113.7:40123', ruleName: 'nas', localPort: 5000, protocol: 'tcp' };

export function stunRoutes(mod: StunContext): OwnHandlers<typeof stunContract> {
  return {
    natTest: async ({ body, req }) => {
      const { resolveStunServer } = await import('./stun.client.js');
      const { natBehaviourTest } = await import('./stun.natcheck.js');
      const label = body.server || mod.rules.settings().stunServers[0]!;
      const r = await resolveStunServer(label)
        .then((server) => natBehaviourTest({ server, ...(body.localHost ? { localHost: body.localHost } : {}) }))
        .catch((err: unknown) => {
          throw failedWith(err);
        });
      return {
        result: {
          server: label,
          publicAddr: r.publicAddr,
          mapping: r.mapping,
          filtering: r.filtering,
          verdict: renderMsg(req.lang, r.verdict),
          steps: r.steps.map((s) => renderMsg(req.lang, s)),
        },
      };
    },
    recheck: async ({ params, req }) => {
      const run = (await mod.engine()).run(params.key);
      if (!run) throw fail(Ret.failed, 'stunNotRunning');
      await run.recheck();
      return { msg: renderMsg(req.lang, { key: 'stunRechecked' }), stun: present(run.figures(), null, req.lang) };
    },
    webhookTest: async ({ body, req }) => {
      const r = await mod.services.webhooks.test(body.webhook, WEBHOOK_SAMPLE);
      return { success: r.success, status: r.status, body: r.body, msg: renderMsg(req.lang, r.reason) };
    },
    choices: () => ({
      ddnsTasks: mod.services.dnsProviders.tasks().map((t) => ({ key: t.key, name: t.name, enable: t.enable, provider: t.provider, domains: t.domains })),
      webhookPresets: mod.services.webhooks.presets(WEBHOOK_MESSAGE) as Record<WebhookPreset, object>,
    }),
  };
}
