/**
 * One poll of one device: its version, process and system figures, the modules switched on, and
 * for each of them the rules with their states (counted here: all, on, in error; DDNS tasks whose
 * sync failed; certificates near expiry). Everything is asked at once; the caller bounds the time.
 */
import { coreRoutes, MODULE_CONTRACTS, MODULES, ZAcmeRuleView, ZDdnsTaskView, type ApiToken, type ModuleKey, type WanjiRuleCounts } from '@lucky/contracts';
import type { Remote } from './wanji.remote.js';

export interface DeviceFacts {
  version: string;
  hostname: string;
  scope: ApiToken['scope'];
  uptime: number;
  cpu: number;
  memory: number;
  rss: number;
  modules: string[];
  rules: Record<string, WanjiRuleCounts>;
  ruleErrors: number;
  ddnsFailing: number | null;
  certsExpiring: number | null;
}

/** The kit's part of every list item. */
interface RuleItem {
  enable?: unknown;
  status?: { state?: unknown };
}

const DAY = 86_400_000;

/** Module keys switched on there, from the menu keys its module list answers with. */
export function enabledModules(menuKeys: readonly string[]): ModuleKey[] {
  return MODULES.filter((m) => menuKeys.includes(m.menuKey)).map((m) => m.key);
}

/** What a device is and runs; `scope` is asked only when not known yet (a new token means a new poller entry). */
export async function pollDevice(remote: Remote, o: { expiryDays: number; scope: ApiToken['scope'] | null; now?: number }): Promise<DeviceFacts> {
  const [version, status, list, who] = await Promise.all([
    remote.call(coreRoutes.version, {}),
    remote.call(coreRoutes.status, {}),
    remote.call(coreRoutes.modulesList, {}),
    o.scope ? null : remote.call(coreRoutes.whoami, {}),
  ]);
  const modules = enabledModules(list.Modules);
  const lists = await Promise.all(
    modules.flatMap((m) => {
      const c = MODULE_CONTRACTS[m];
      return c ? [remote.envelope(c.routes.list, {}).then((e) => [m, Array.isArray(e.list) ? (e.list as unknown[]) : []] as const)] : [];
    }),
  );
  const rules: Record<string, WanjiRuleCounts> = {};
  let ruleErrors = 0;
  let ddnsFailing: number | null = null;
  let certsExpiring: number | null = null;
  const now = o.now ?? Date.now();
  for (const [m, items] of lists) {
    const counts = { total: 0, enabled: 0, errors: 0 };
    for (const item of items as RuleItem[]) {
      counts.total++;
      if (item?.enable === true) counts.enabled++;
      if (item?.status?.state === 'error') counts.errors++;
    }
    rules[m] = counts;
    ruleErrors += counts.errors;
    if (m === 'ddns') ddnsFailing = items.filter((i) => failing(i)).length;
    if (m === 'acme') certsExpiring = items.filter((i) => expiring(i, now + o.expiryDays * DAY)).length;
  }
  const sys = status.data.system;
  return {
    version: version.version,
    hostname: sys.hostname,
    scope: who?.scope ?? o.scope!,
    uptime: Math.round(status.data.process.uptime),
    cpu: round1(sys.cpuPercent),
    memory: sys.memTotal > 0 ? round1(((sys.memTotal - sys.memFree) / sys.memTotal) * 100) : 0,
    rss: status.data.process.memory.rss,
    modules,
    rules,
    ruleErrors,
    ddnsFailing,
    certsExpiring,
  };
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** A DDNS task in error, or whose last sync failed (its view, read with the DDNS contract). */
function failing(item: unknown): boolean {
  const v = ZDdnsTaskView.safeParse(item);
  if (!v.success) return (item as RuleItem)?.status?.state === 'error';
  return v.data.status.state === 'error' || v.data.sync.status === 'updateFailed';
}

/** A certificate rule whose certificate expires before `limit` (its view, read with the certificates contract). */
function expiring(item: unknown, limit: number): boolean {
  const v = ZAcmeRuleView.safeParse(item);
  return v.success && v.data.certificate !== null && v.data.certificate.notAfter < limit;
}
