/**
 * Web services module: listener rules with sub rules by domain (reverse proxy, redirect, URL jump,
 * file server, text output, close connection). Basic auth passwords are stored as scrypt hashes;
 * views never show them, and an empty password on update keeps the stored one.
 */
import { Ret, ZWebConfigure, ZWebRule, formatIssues, webRoutes, type WebRule } from '@lucky/contracts';
import { RuleLogs, statusText } from '../../core/engine.js';
import { AppError, fail } from '../../core/envelope.js';
import type { ModuleDef } from '../../core/modulehost.js';
import { hashPassword } from '../../core/password.js';
import { addRoute } from '../../core/routes.js';
import { RuleModule } from '../../core/rulemodule.js';
import { RuleStore, SettingsStore } from '../../core/rulestore.js';
import { WebServing } from './web.serving.js';
import { NftFirewall, type Firewall } from './web.firewall.js';

const HASH_RE = /^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/;

type Users = WebRule['basicAuth']['users'];

/** Hashes new passwords; an empty one keeps the stored hash of the same user (or is refused). */
async function hashUsers(users: Users, previous: Users | undefined): Promise<Users> {
  const out: Users = [];
  for (const u of users) {
    if (u.password === '') {
      const prev = previous?.find((p) => p.user === u.user)?.password;
      if (!prev) throw fail(Ret.badRequest, 'passwordRequired', { user: u.user });
      out.push({ user: u.user, password: prev });
    } else if (HASH_RE.test(u.password) && previous?.some((p) => p.password === u.password)) {
      out.push(u); // an unchanged stored hash sent back as is
    } else {
      out.push({ user: u.user, password: await hashPassword(u.password) });
    }
  }
  return out;
}

/** Every basic-auth list of the rule hashed, matched against the stored rule's lists. */
export async function hashRulePasswords(next: WebRule, prev: WebRule | undefined): Promise<WebRule> {
  const out: WebRule = { ...next, basicAuth: { ...next.basicAuth, users: await hashUsers(next.basicAuth.users, prev?.basicAuth.users) } };
  out.subRules = [];
  for (let i = 0; i < next.subRules.length; i++) {
    const sub = next.subRules[i]!;
    // The same sub rule in the stored rule: by name, else by position.
    const before = prev?.subRules.find((s) => s.name !== '' && s.name === sub.name) ?? prev?.subRules[i];
    const all = [...(before?.basicAuth.users ?? []), ...(prev?.basicAuth.users ?? [])];
    out.subRules.push({ ...sub, basicAuth: { ...sub.basicAuth, users: await hashUsers(sub.basicAuth.users, all) } });
  }
  return out;
}

function hidePasswords(rule: WebRule): WebRule {
  const strip = (users: Users) => users.map((u) => ({ user: u.user, password: '' }));
  return {
    ...rule,
    basicAuth: { ...rule.basicAuth, users: strip(rule.basicAuth.users) },
    subRules: rule.subRules.map((s) => ({ ...s, basicAuth: { ...s.basicAuth, users: strip(s.basicAuth.users) } })),
  };
}

export function createWebModule(opts: { firewall?: Firewall } = {}): ModuleDef {
  return {
    key: 'web',
    data: { rule: ZWebRule, settings: ZWebConfigure },
    create({ db, log }) {
      const logs = new RuleLogs();
      const settings = new SettingsStore(db, 'web', ZWebConfigure);
      const engine = new WebServing({ log, logs, firewall: opts.firewall ?? new NftFirewall() }, settings.get().servingThreads);
      const rules = new RuleModule({
        store: new RuleStore(db, 'web', ZWebRule, log),
        settings,
        engine,
        onSettings: (next) => engine.setThreads(next.servingThreads),
        log,
        logs,
        extra: async (r, lang) => {
          const fw = engine.firewallNote(r.key);
          return { figures: await engine.figures(r.key), firewall: fw ? statusText([fw], lang) : 'off' };
        },
        prepare: (input, previous) => hashRulePasswords(input, previous),
        present: hidePasswords,
      });
      return {
        routes(app) {
          const R = webRoutes;
          rules.register(app, R);
          addRoute(app, R.accessLog, ({ params, query }) => {
            rules.require(params.key);
            const limit = query.limit ?? rules.settings.get().accessLogShow;
            return engine.accessLog(params.key, limit);
          });
          addRoute(app, R.replaceDomain, async ({ body, req }) => {
            if (body.from === body.to) return { changed: 0, rules: 0 };
            let changed = 0;
            let touched = 0;
            const pending: Array<{ key: string; data: WebRule }> = [];
            for (const r of rules.store.list()) {
              if (body.keys.length && !body.keys.includes(r.key)) continue;
              let n = 0;
              const subRules = r.data.subRules.map((s) => {
                if (!s.domains.includes(body.from)) return s;
                n++;
                const domains = [...new Set(s.domains.map((d) => (d === body.from ? body.to : d)))];
                return { ...s, domains };
              });
              if (n) {
                changed += n;
                touched++;
                pending.push({ key: r.key, data: { ...r.data, subRules } });
              }
            }
            // Validate everything first, then save: a bad result saves nothing.
            for (const p of pending) {
              const ok = ZWebRule.safeParse(p.data);
              if (!ok.success) throw new AppError(Ret.badRequest, null, {}, formatIssues(ZWebRule, p.data, req.lang));
            }
            for (const p of pending) await rules.update(p.key, p.data);
            return { changed, rules: touched };
          });
        },
        start: () => rules.startAll(),
        stop: () => rules.stopAll(),
        connections: () => engine.connections(),
      };
    },
  };
}

export const webModule: ModuleDef = createWebModule();
