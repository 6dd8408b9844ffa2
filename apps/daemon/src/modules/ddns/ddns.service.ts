/**
 * The `dnsProviders` service DDNS offers other modules: provider clients on the engine's
 * connections, and publishing through a task. Light to create: the engine (and undici) is imported
 * with the first record set or published.
 */
import { DDNS_PROVIDER_INFO, DDNS_PROVIDERS, Ret } from '@lucky/contracts';
import { fail } from '../../core/envelope.js';
import { moduleName } from '../../core/ports.js';
import type { DnsProvidersService } from '../../core/services/index.js';
import { parseDomain } from '../../lib/dns/domain.js';
import { recordTypes } from '../../lib/dns/providers/types.js';
import type { DdnsContext } from './index.js';

/** The zone a task's domain line lies in (`www.example.com` → `example.com`); '' for a line that is not a name. */
function zoneOf(line: string): string {
  try {
    return parseDomain(line).root;
  } catch {
    return '';
  }
}

export function dnsProvidersService(mod: DdnsContext): DnsProvidersService {
  return {
    providers: () => DDNS_PROVIDERS.map((name) => ({ name, ...DDNS_PROVIDER_INFO[name], records: recordTypes(name) })),
    client: (provider, credentials, opts) => ({
      provider,
      // The engine of the moment: one that stopped with the module is replaced by the next.
      set: async (record) => (await mod.engine()).client(provider, credentials, opts).set(record),
      list: async (record) => (await mod.engine()).client(provider, credentials, opts).list(record),
      remove: async (record) => (await mod.engine()).client(provider, credentials, opts).remove(record),
    }),
    taskClient: (key) => {
      const task = mod.rules.get(key);
      if (!task) return null;
      const t = task.data;
      const opts = { timeoutMs: t.httpTimeout * 1000, proxy: t.proxy, skipVerify: t.skipVerify };
      return {
        provider: t.provider,
        set: async (record) => (await mod.engine()).client(t.provider, t.credentials, opts).set(record),
        list: async (record) => (await mod.engine()).client(t.provider, t.credentials, opts).list(record),
        remove: async (record) => (await mod.engine()).client(t.provider, t.credentials, opts).remove(record),
      };
    },
    tasks: () =>
      mod.rules.list().map((r) => ({
        key: r.key,
        name: r.data.name,
        enable: r.data.enable,
        provider: r.data.provider,
        recordType: r.data.recordType,
        domains: r.data.domains,
        ...(r.data.provider === 'rfc2136' ? { server: r.data.credentials.server } : {}),
      })),
    publish: async (key, addresses, from) => {
      const task = mod.rules.require(key);
      if (!task.data.enable) throw fail(Ret.failed, 'ddnsTaskDisabled');
      // Its switch governs its tasks: a task of a module that is off publishes nothing.
      if (!mod.config.isModuleEnabled('ddns')) throw fail(Ret.moduleDisabled, 'moduleDisabled', { module: 'ddns' });
      const records = await (await mod.engine()).publish(key, addresses, moduleName(from));
      if (!records) throw fail(Ret.failed, 'ddnsNotRunning');
      return records.map((r) => ({ domain: r.domain, type: r.type, status: r.status, ip: r.ip, reason: r.reason }));
    },
    ensureTask: async (owner, o) => {
      const template = mod.rules.get(o.template);
      if (!template) throw fail(Ret.badRequest, 'ddnsTemplateMissing', { task: o.template });
      const zone = zoneOf(template.data.domains[0] ?? '');
      const outside = o.names.find((n) => n !== zone && !n.endsWith(`.${zone}`));
      if (outside !== undefined) throw fail(Ret.badRequest, 'ddnsNameOutsideZone', { name: outside, zone, task: template.data.name });
      // The template's way of writing a name: `sub:zone` keeps the split a provider needs.
      const split = template.data.domains.some((d) => d.includes(':'));
      const domains = o.names.map((n) => (split ? `${n === zone ? '@' : n.slice(0, -zone.length - 1)}:${zone}` : n));
      const want = { ...template.data, name: `${owner.name}`.slice(0, 64), enable: true, domains, note: `${owner.module}: ${owner.name}`.slice(0, 512) };
      const have = mod.rules.owned(owner)[0];
      if (!have) return mod.rules.create(want, 'en_US', { owner });
      if (JSON.stringify(have.data) !== JSON.stringify({ ...have.data, ...want })) await mod.rules.update(have.key, { ...have.data, ...want }, 'en_US');
      return have.key;
    },
    releaseTask: async (owner) => {
      for (const t of mod.rules.owned(owner)) await mod.rules.remove(t.key, { confirm: true });
    },
    addresses: async (key) => {
      const task = mod.rules.get(key);
      if (!task?.data.enable || !mod.config.isModuleEnabled('ddns')) return null;
      return (await mod.engine()).addresses(key);
    },
  };
}
