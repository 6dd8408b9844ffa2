/**
 * The `certificateOrders` service: one ACME rule of this module per owner (a web rule with automatic
 * HTTPS, a published service), kept matching what the owner asks for, with the CA and account of
 * the module's `auto` settings. The rule is an ordinary one: listed, logged, renewed and backed up
 * like the user's own, and marked with its owner.
 */
import { Ret, type AcmeRuleInput, type Msg } from '@lucky/contracts';
import { fail } from '../../core/envelope.js';
import type { CertificateOrder, CertificateOrdersService, OrderOwner } from '../../core/services/certificateOrders.js';
import type { AcmeContext } from './index.js';

type Owner = Pick<OrderOwner, 'module' | 'key'>;

/** How orders end, by store name: what the engine tells and the owners hear. */
export class OrderOutcomes {
  private last = new Map<string, Msg | null>();
  private listeners = new Map<string, Set<(problem: Msg | null) => void>>();

  told(name: string, problem: Msg | null): void {
    this.last.set(name, problem);
    for (const l of this.listeners.get(name) ?? []) l(problem);
  }

  problem(name: string): Msg | null {
    return this.last.get(name) ?? null;
  }

  watch(name: string, listener: (problem: Msg | null) => void): () => void {
    const set = this.listeners.get(name) ?? new Set();
    this.listeners.set(name, set);
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(name);
    };
  }

  forget(name: string): void {
    this.last.delete(name);
  }
}

/** The fields an order is compared by: a rule that differs in one of them is written again. */
const COMPARED = ['domains', 'challenge', 'httpPort', 'dnsTask', 'ca', 'directoryUrl', 'caRoot', 'email', 'eabKid', 'keyType', 'renewBeforeDays'] as const;

export function certificateOrders(mod: AcmeContext, outcomes: OrderOutcomes): CertificateOrdersService {
  const nameFor = (o: Owner) => `auto-${o.module}-${o.key}`;
  const ruleOf = (o: Owner) => mod.rules.list().find((r) => r.data.name === nameFor(o));
  // One change at a time per owner: a web rule saved twice quickly asks twice.
  const queues = new Map<string, Promise<unknown>>();
  const queued = <T>(o: Owner, job: () => Promise<T>): Promise<T> => {
    const id = nameFor(o);
    const p = (queues.get(id) ?? Promise.resolve()).catch(() => undefined).then(job);
    queues.set(id, p);
    void p.finally(() => queues.get(id) === p && queues.delete(id)).catch(() => undefined);
    return p;
  };

  return {
    nameFor,
    ensure: (owner, order: CertificateOrder) =>
      queued(owner, async () => {
        if (!mod.config.isModuleEnabled('acme')) throw fail(Ret.moduleDisabled, 'acmeAutoNeedsModule');
        const name = nameFor(owner);
        const auto = mod.rules.settings().auto;
        const have = ruleOf(owner);
        const want: AcmeRuleInput = {
          ...(have ? have.data : {}),
          name,
          source: 'acme',
          ca: auto.ca,
          directoryUrl: auto.directoryUrl,
          caRoot: auto.caRoot,
          email: auto.email,
          eabKid: auto.eabKid,
          eabHmac: auto.eabHmac,
          keyType: auto.keyType,
          renewBeforeDays: auto.renewBeforeDays,
          domains: [...new Set(order.names.map((n) => n.toLowerCase()))].sort(),
          challenge: order.challenge,
          httpPort: order.httpPort ?? 80,
          dnsTask: order.dnsTask ?? '',
          note: `${owner.module}: ${owner.name}`.slice(0, 512),
        };
        if (!have) {
          await mod.rules.create({ enable: true, ...want }, 'en_US', { owner });
          return name;
        }
        const same = COMPARED.every((f) => JSON.stringify(have.data[f]) === JSON.stringify((want as Record<string, unknown>)[f])) && have.data.note === want.note;
        if (!same) await mod.rules.update(have.key, want, 'en_US');
        // One the user switched off stays off: their choice.
        return name;
      }),
    watch: (owner, listener) => outcomes.watch(nameFor(owner), listener),
    problem: (owner) => outcomes.problem(nameFor(owner)),
    release: (owner) =>
      queued(owner, async () => {
        const name = nameFor(owner);
        const have = ruleOf(owner);
        if (have) await mod.rules.remove(have.key, { confirm: true });
        mod.services.certificates.remove(name);
        outcomes.forget(name);
      }),
  };
}
