/** Port forwarding: TCP/UDP relays with port ranges, limits, an IP filter, TLS and PROXY protocol. */
import { createSecureContext } from 'node:tls';
import { portforwardRoutes, Ret, ZPortforwardConfigure, ZPortforwardRule, type PortforwardRule } from '@lucky/contracts';
import { fail } from '../../core/envelope.js';
import { RuleLogs } from '../../core/engine.js';
import type { ModuleDef } from '../../core/modulehost.js';
import { RuleModule } from '../../core/rulemodule.js';
import { RuleStore, SettingsStore } from '../../core/rulestore.js';
import { PortforwardEngine } from './portforward.engine.js';

/** A certificate that does not match its key is refused on save, not found later by the engine. */
function checkTlsPair(rule: PortforwardRule): PortforwardRule {
  if (rule.tls.listen) {
    try {
      createSecureContext({ cert: rule.tls.cert, key: rule.tls.key });
    } catch (err) {
      throw fail(Ret.badRequest, 'pfTlsPairInvalid', { detail: (err as Error).message });
    }
  }
  return rule;
}

export const portforwardModule: ModuleDef = {
  key: 'portforward',
  data: { rule: ZPortforwardRule, settings: ZPortforwardConfigure },
  create({ db, log }) {
    const settings = new SettingsStore(db, 'portforward', ZPortforwardConfigure);
    const logs = new RuleLogs(256);
    const engine = new PortforwardEngine({ log, logs, settings: settings.get() });
    const rules = new RuleModule({
      store: new RuleStore(db, 'portforward', ZPortforwardRule, log),
      settings,
      engine,
      log,
      logs,
      extra: (r) => ({ stats: engine.stats(r.key) }),
      prepare: checkTlsPair,
      onSettings: (next) => engine.setSettings(next),
    });
    return {
      routes(app) {
        rules.register(app, portforwardRoutes);
      },
      start: () => rules.startAll(),
      stop: () => rules.stopAll(),
      connections: () => engine.connections(),
    };
  },
};
