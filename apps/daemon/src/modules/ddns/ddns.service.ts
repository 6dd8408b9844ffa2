/**
 * The `dnsProviders` service DDNS offers other modules: provider clients on the engine's
 * connections, and publishing through a task. Light to create: the engine (and undici) is imported
 * with the first record set or published.
 */
import { DDNS_PROVIDER_INFO, DDNS_PROVIDERS, Ret } from '@lucky/contracts';
import { fail } from '../../core/envelope.js';
import { moduleName } from '../../core/ports.js';
import type { DnsProvidersService } from '../../core/services/index.js';
import { recordTypes } from '../../lib/dns/providers/types.js';
import type { DdnsContext } from './index.js';

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
    addresses: async (key) => {
      const task = mod.rules.get(key);
      if (!task?.data.enable || !mod.config.isModuleEnabled('ddns')) return null;
      return (await mod.engine()).addresses(key);
    },
  };
}
