/**
 * Certificates (`acme`): named certificates of the daemon's certificate store, from PEM text, files
 * or an ACME CA, kept valid and renewed. Web services and the other TLS rules read them through the
 * `certificates` service. Checks beyond the schema at save: a PEM certificate must match its key, a
 * private CA's root and an imported account key must be PEM.
 */
import { X509Certificate } from 'node:crypto';
import { Ret, acmeContract, renderMsg, type AcmeRule, type WebhookPreset } from '@lucky/contracts';
import { AppError, fail, failedWith } from '../../core/envelope.js';
import { defineModule, type ModuleContext } from '../../core/module.js';
import { TlsError } from '../../lib/tls/pem.js';
import { MsgError } from '../../lib/msgerror.js';
import type { WebhookMessage } from '../../lib/webhook/webhook.js';
import type { AcmeEngine } from './acme.engine.js';
import { accountKey } from './acme.jws.js';
import { certificateOrders, OrderOutcomes } from './acme.orders.js';
import { AcmeAccounts, acmeAccountsPart, acmeMigrations } from './acme.store.js';

type Needs = 'certificates' | 'dnsProviders' | 'httpChallenges' | 'webhooks';
export type AcmeContext = ModuleContext<typeof acmeContract, Needs, AcmeEngine>;

const WEBHOOK_MESSAGE: WebhookMessage = {
  title: 'Lucky certificate #{name}: #{event}',
  text: 'Lucky #{time}\nCertificate #{name} (#{domains}): #{event}\nValid until #{notAfter} (#{daysLeft} days left)\n#{error}',
};
/** What the "test" button fills the webhook with. */
const WEBHOOK_SAMPLE = { name: 'site', domains: 'example.com,*.example.com', event: 'failed', notAfter: '2030-01-01 00:00', daysLeft: 5, error: 'sample error' };

function checkRule(rule: AcmeRule, mod: AcmeContext): AcmeRule {
  if (rule.source === 'pem') {
    try {
      mod.services.certificates.check(rule.cert, rule.privateKey);
    } catch (err) {
      if (err instanceof TlsError) throw new AppError(Ret.badRequest, err.msg.key as never, err.msg.vars ?? {});
      throw err;
    }
  }
  if (rule.source === 'acme') {
    if (rule.caRoot.trim()) {
      try {
        new X509Certificate(rule.caRoot);
      } catch (err) {
        throw fail(Ret.badRequest, 'acmeBadCaRoot', { detail: (err as Error).message });
      }
    }
    if (rule.accountKey.trim()) {
      try {
        accountKey(rule.accountKey);
      } catch (err) {
        if (err instanceof MsgError) throw new AppError(Ret.badRequest, err.msg.key as never, err.msg.vars ?? {});
        throw err;
      }
    }
  }
  return rule;
}

/** How the orders of automatic certificates end, from the engine to their owners (module-wide: the engine comes and goes). */
const outcomes = new OrderOutcomes();

export default defineModule<typeof acmeContract, Needs, 'certificateOrders', AcmeEngine>({
  key: 'acme',
  contract: acmeContract,
  migrations: acmeMigrations,
  services: {
    needs: ['certificates', 'dnsProviders', 'httpChallenges', 'webhooks'],
    provides: { certificateOrders: (mod) => certificateOrders(mod, outcomes) },
  },
  engine: async (mod) =>
    new (await import('./acme.engine.js')).AcmeEngine({
      certificates: mod.services.certificates,
      dnsProviders: () => mod.services.dnsProviders,
      httpChallenges: () => mod.services.httpChallenges,
      webhooks: () => mod.services.webhooks,
      accounts: new AcmeAccounts(mod.db),
      dnsLookup: mod.env.acmeTestLookup,
      outcome: (name, problem) => outcomes.told(name, problem),
    }),
  prepare: (rule, _previous, mod) => checkRule(rule, mod),
  backup: (mod) => acmeAccountsPart(mod.db),
  view: (rule, figures, _lang, mod) => {
    const c = mod.services.certificates.get(rule.data.name);
    return {
      certificate: c ? { names: c.names, notBefore: c.notBefore, notAfter: c.notAfter, issuer: c.issuer, fingerprint: c.fingerprint } : null,
      renewAt: figures?.renewAt ?? null,
    };
  },
  run: async (rule, mod) => (await mod.engine()).renew(rule.key),
  metrics: async (rules, m, mod) => (await import('./acme.metrics.js')).acmeMetrics(rules, m, mod.services.certificates),
  routes: (mod) => ({
    certificates: async () => ({
      list: mod.services.certificates.list().map((c) => ({
        name: c.name,
        names: c.names,
        notBefore: c.notBefore,
        notAfter: c.notAfter,
        issuer: c.issuer,
        subject: c.subject,
        fingerprint: c.fingerprint,
        created: c.created,
        updated: c.updated,
      })),
    }),
    export: async ({ params, body, reply, req }) => {
      const rule = mod.rules.require(params.key);
      const c = mod.services.certificates.get(rule.data.name);
      if (!c) throw fail(Ret.failed, 'acmeNoCertificate');
      const f = (await import('./acme.export.js')).exportFile(rule.data.name, c.cert, c.key, body.format, body.password);
      // A private key leaving the daemon is worth a line of the program log (never the password).
      mod.say.info({ key: 'acmeExported', vars: { name: rule.data.name, format: body.format, client: req.ip } });
      return reply.header('content-disposition', `attachment; filename="${f.name}"`).header('cache-control', 'no-store').type(f.type).send(f.body);
    },
    webhookTest: async ({ body, req }) => {
      const r = await mod.services.webhooks.test(body.webhook, WEBHOOK_SAMPLE);
      return { success: r.success, status: r.status, body: r.body, msg: renderMsg(req.lang, r.reason) };
    },
    choices: () => ({ webhookPresets: mod.services.webhooks.presets(WEBHOOK_MESSAGE) as Record<WebhookPreset, object> }),
    renew: async ({ params, req }) => {
      const rule = mod.rules.require(params.key);
      if (!rule.data.enable) throw fail(Ret.failed, 'ruleSwitchedOff');
      try {
        const line = await (await mod.engine()).renew(rule.key);
        return { msg: renderMsg(req.lang, line) };
      } catch (err) {
        throw failedWith(err);
      }
    },
  }),
});
