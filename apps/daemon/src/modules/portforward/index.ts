/** Port forwarding: TCP/UDP relays with port ranges, limits, an IP filter, TLS and PROXY protocol. */
import { portforwardRoutes, ZPortforwardConfigure, ZPortforwardRule } from '@lucky/contracts';
import { RuleLogs } from '../../core/engine.js';
import type { ModuleDef } from '../../core/modulehost.js';
import { RuleModule } from '../../core/rulemodule.js';
import { RuleStore, SettingsStore } from '../../core/rulestore.js';
import { PortforwardEngine } from './portforward.engine.js';

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
