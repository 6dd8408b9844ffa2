/** The web module's own routes: a rule's access log, and a domain replaced across rules. */
import { Ret, ZWebRule, formatIssues, type WebRule, type webContract } from '@lucky/contracts';
import { AppError, fail } from '../../core/envelope.js';
import type { OwnHandlers } from '../../core/module.js';
import { PortConflict } from '../../core/ports.js';
import type { WebContext } from './index.js';

export function webRoutes(mod: WebContext): OwnHandlers<typeof webContract> {
  return {
    accessLog: async ({ params, query }) => {
      mod.rules.require(params.key);
      const limit = query.limit ?? mod.rules.settings().accessLogShow;
      return (await mod.engine()).accessLog(params.key, limit);
    },

    replaceDomain: async ({ body, req }) => {
      if (body.from === body.to) return { changed: 0, rules: 0 };
      let changed = 0;
      const pending: Array<{ key: string; data: WebRule }> = [];
      for (const r of mod.rules.list()) {
        if (body.keys.length && !body.keys.includes(r.key)) continue;
        let n = 0;
        const subRules = r.data.subRules.map((s) => {
          if (!s.domains.includes(body.from)) return s;
          n++;
          return { ...s, domains: [...new Set(s.domains.map((d) => (d === body.from ? body.to : d)))] };
        });
        if (n) {
          changed += n;
          pending.push({ key: r.key, data: { ...r.data, subRules } });
        }
      }
      // Everything is checked first (schema, ports), then saved: a refused result saves nothing.
      for (const p of pending) {
        if (!ZWebRule.safeParse(p.data).success) throw new AppError(Ret.badRequest, null, {}, formatIssues(ZWebRule, p.data, req.lang));
        try {
          mod.rules.runtime.admit(p.key, p.data);
        } catch (err) {
          if (err instanceof PortConflict) throw fail(Ret.failed, 'notSavedPortTaken', { detail: err.msg });
          throw err;
        }
      }
      for (const p of pending) await mod.rules.replace(p.key, p.data);
      return { changed, rules: pending.length };
    },
  };
}
