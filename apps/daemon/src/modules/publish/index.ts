/**
 * Publish: a LAN service made reachable under public names in one step, composed of the other
 * modules through services only (a DDNS task, a web rule with automatic HTTPS, router forwards),
 * each part listed in its own module and marked as the service's. A service whose parts cannot be
 * made is not kept (`startsOrRefuses`); deleting it deletes its parts and nothing else.
 */
import { Ret, publishContract, renderMsg, type Msg } from '@lucky/contracts';
import { fail } from '../../core/envelope.js';
import { defineModule, type ModuleContext } from '../../core/module.js';
import type { PublishEngine } from './publish.engine.js';

type Needs = 'rules' | 'dnsProviders' | 'certificates' | 'certificateOrders' | 'portMappings' | 'stunAddresses';
export type PublishContext = ModuleContext<typeof publishContract, Needs, PublishEngine>;

/** Every link looked at now ("run now", the card's "check now"). */
async function recheck(key: string, mod: PublishContext): Promise<Msg> {
  if (!(await (await mod.engine()).recheck(key))) throw fail(Ret.failed, 'publishNotRunning');
  return { key: 'publishChecked' };
}

const NOT_YET = { url: '', publicAddress: '', publicPort: null, parts: { ddns: null, web: null, certificate: null, stun: null }, checks: [] };

export default defineModule<typeof publishContract, Needs, never, PublishEngine>({
  key: 'publish',
  contract: publishContract,
  services: { needs: ['rules', 'dnsProviders', 'certificates', 'certificateOrders', 'portMappings', 'stunAddresses'] },
  engine: async (mod) =>
    new (await import('./publish.engine.js')).PublishEngine({
      rules: () => mod.services.rules,
      dns: () => mod.services.dnsProviders,
      certificates: () => mod.services.certificates,
      orders: () => mod.services.certificateOrders,
      mappings: async () => mod.services.portMappings,
      stun: async () => mod.services.stunAddresses,
      lookup: mod.env.acmeTestLookup,
    }),
  startsOrRefuses: true,
  prepare: (rule, previous, mod) => {
    // Names are what the parts are called by in their own modules.
    if (rule.name !== previous?.name && mod.rules.list().some((r) => r.data.name === rule.name)) throw fail(Ret.badRequest, 'duplicateName');
    if (rule.reach === 'direct') {
      if (rule.httpPort === rule.httpsPort) throw fail(Ret.badRequest, 'webRedirectPortSame', { port: rule.httpsPort });
      if (rule.publicHttpPort === rule.publicHttpsPort) throw fail(Ret.badRequest, 'webRedirectPortSame', { port: rule.publicHttpsPort });
    }
    return rule;
  },
  view: (_rule, figures, lang) => {
    const f = figures ?? NOT_YET;
    return {
      url: f.url,
      publicAddress: f.publicAddress,
      publicPort: f.publicPort,
      parts: f.parts,
      checks: f.checks.map((c) => ({ id: c.id, state: c.state, message: renderMsg(lang, c.msg), hint: c.hint ? renderMsg(lang, c.hint) : '', checked: c.checked })),
    };
  },
  run: (rule, mod) => recheck(rule.key, mod),
  routes: (mod) => ({
    check: async ({ params, req }) => ({ msg: renderMsg(req.lang, await recheck(mod.rules.require(params.key).key, mod)) }),
  }),
  // Switched off, the service is no longer reachable: the parts that carry its traffic go off with it
  // (the router forwards went with its stop). Switched on, its start brings them back.
  switched: (key, enable, mod) => {
    if (enable) return;
    const owner = { module: 'publish', key };
    void (async () => {
      for (const module of ['stun', 'web'] as const) {
        for (const r of await mod.services.rules.owned(module, owner).catch(() => [])) {
          await mod.services.rules.update(module, r.key, { ...r.data, enable: false }).catch(() => undefined);
        }
      }
    })();
  },
  // Its parts go with it: the web rule (whose certificate goes with it), the STUN rule and the DDNS task.
  removed: (key, mod) => {
    const owner = { module: 'publish', key };
    void (async () => {
      for (const module of ['web', 'stun'] as const) {
        for (const r of await mod.services.rules.owned(module, owner).catch(() => [])) await mod.services.rules.remove(module, r.key).catch(() => undefined);
      }
      await mod.services.dnsProviders.releaseTask(owner).catch(() => undefined);
    })();
  },
});
