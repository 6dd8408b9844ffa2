/**
 * What a rule's proxies last said of their backends, for /metrics: a backend an active check failed
 * stays down until a check passes; one taken out after errors (passive) is down for the time it was
 * taken out. Heard from the lines every engine and thread already sends to the rule's log, so that
 * nothing new crosses threads or the native edge.
 */
import type { Msg, MsgValue, WebRule } from '@lucky/contracts';

export interface BackendState {
  /** The sub rule's name; '' for the rule's default service. */
  site: string;
  url: string;
  up: boolean;
}

const siteOf = (v: MsgValue | undefined): string => (typeof v === 'string' ? v : '');
const idOf = (site: string, url: string) => `${site}\n${url}`;

export class BackendHealth {
  private checkDown = new Set<string>();
  private downUntil = new Map<string, number>();

  heard(line: Msg, now = Date.now()): void {
    const v = line.vars ?? {};
    const url = typeof v.url === 'string' ? v.url : null;
    if (url === null) return;
    const id = idOf(siteOf(v.site), url);
    if (line.key === 'webBackendCheckDown') this.checkDown.add(id);
    else if (line.key === 'webBackendCheckUp') this.checkDown.delete(id);
    else if (line.key === 'webBackendDown' && typeof v.seconds === 'number') this.downUntil.set(id, now + v.seconds * 1000);
  }

  /** Every backend the rule proxies to, as last heard (up until told otherwise). */
  states(rule: WebRule, now = Date.now()): BackendState[] {
    const out: BackendState[] = [];
    const seen = new Set<string>();
    const sites = [{ name: '', service: rule.defaultService }, ...rule.subRules.filter((s) => s.enable)];
    for (const { name, service } of sites) {
      if (service.type !== 'proxy') continue;
      for (const url of service.targets) {
        const id = idOf(name, url);
        if (seen.has(id)) continue;
        seen.add(id);
        out.push({ site: name, url, up: !this.checkDown.has(id) && (this.downUntil.get(id) ?? 0) <= now });
      }
    }
    return out;
  }
}
