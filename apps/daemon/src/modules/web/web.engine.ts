/**
 * The web services engine of the kit: starts one rule and returns its handle. A rule's certificates
 * are read and checked by the certificates service, then the rule is served on the main thread or by
 * serving threads (web.serving.ts), as the module setting says; switching that setting moves every
 * running rule to the new place (open connections close, nothing saved changes). A rule saved with
 * the same listener is applied in place, so its open connections carry on. The rule's port was
 * claimed by the kit before anything here runs; the firewall's auto-allow is opened and closed with
 * the rule.
 */
import { autoCertNames, autoCertOf, type Msg, type WebConfigure, type WebFigures, type WebRule } from '@lucky/contracts';
import { errorMsg } from '../../core/envelope.js';
import { RuleProblem, type Engine, type RuleContext, type RuleHandle } from '../../core/engine.js';
import type { DaemonEnv } from '../../core/env.js';
import type { Say } from '../../core/logs.js';
import { awaitStoreCerts } from '../../core/rulecerts.js';
import type { CertificateOrdersService } from '../../core/services/certificateOrders.js';
import type { CertificatesService } from '../../core/services/certificates.js';
import type { HttpChallengesService } from '../../core/services/httpChallenges.js';
import { TlsError, type CertSource, type TlsCert } from '../../lib/tls/pem.js';
import { selfSigned } from '../../lib/tls/selfsigned.js';
import { autoOrderOf } from './web.autocert.js';
import { HttpCompanion } from './web.companion.js';
import type { WebPlan } from './web.compile.js';
import { BackendHealth, type BackendState } from './web.backends.js';
import { applyFirewall, firewallPart, NftFirewall, type Firewall } from './web.firewall.js';
import { fmtAddr } from '../../lib/ip.js';
import { listenHost, listenIdOf } from './web.listen.js';
import { EdgeServing } from './web.edge.js';
import { createServing, sameChoice, servingThreads, type AccessLogPage, type Serving, type ThreadChoice } from './web.serving.js';

/** What the rule list shows of a running rule. */
export interface WebRunFigures {
  traffic: WebFigures;
  /** What the firewall switch did; null when it is off. */
  firewall: Msg | null;
  /** The rule's proxy backends, up or marked down (metrics). */
  backends: BackendState[];
}

export interface WebEngineDeps {
  env: Readonly<DaemonEnv>;
  say: Say;
  certificates: CertificatesService;
  challenges: HttpChallengesService;
  /** Automatic certificates (`certs[]` of source `auto`), ordered by the certificates module. */
  orders(): CertificateOrdersService;
  settings(): WebConfigure;
  /** nftables by default; tests give their own. */
  firewall?: Firewall;
  /** The built serving thread (tests of a copy). */
  workerFile?: string;
}

interface Run {
  key: string;
  rule: WebRule;
  ctx: RuleContext<WebConfigure>;
  /** False after a switch of serving threads that could not start it again. */
  serving: boolean;
  firewall: Msg | null;
  backends: BackendHealth;
  /** Stops answering ACME challenges (a plain-HTTP rule answers them for its port). */
  leaveChallenges: () => void;
  /** HTTPS with `httpRedirectPort`: the plain-HTTP companion. */
  companion: HttpCompanion | null;
  /** What the serving side and the certificates said at the last apply. */
  notes: Msg[];
  /** The automatic certificate: how its last order ended (null: well, or none yet), and the unsubscribe. */
  orderProblem: Msg | null;
  unwatchOrder: () => void;
}

const owner = (key: string) => ({ module: 'web', key });

export class WebEngine implements Engine<WebRule, WebConfigure, WebRunFigures> {
  private serving: Serving;
  private threads: ThreadChoice;
  private runs = new Map<string, Run>();
  private busy = new Set<Promise<unknown>>();
  private switching: Promise<void> | null = null;
  private firewall: Firewall;

  private unsubscribe: () => void;

  constructor(private d: WebEngineDeps) {
    this.threads = servingThreads(d.settings(), d.env.webThreads);
    this.serving = createServing(this.threads, { ...d, engine: d.env.webEngine ?? 'native' });
    this.firewall = d.firewall ?? new NftFirewall();
    this.unsubscribe = d.certificates.onChange((name) => this.certificateChanged(name));
  }

  /** A certificate of the store changed (ACME renewed it): rules that pick it by name swap it in; open connections carry on. */
  private certificateChanged(name: string): void {
    for (const run of this.runs.values()) {
      if (run.rule.protocol !== 'https' || !this.sources(run.key, run.rule).some((c) => c.source === 'store' && c.cert === name)) continue;
      void this.track(async () => {
        if (this.runs.get(run.key) !== run || !run.serving) return;
        const plan = await this.plan(run.key, run.rule);
        const warnings = await this.serving.apply(run.key, plan);
        run.ctx.note({ key: 'certSwapped', vars: { name } });
        this.report(run, plan, warnings);
      }).catch((err: unknown) => run.ctx.report([err instanceof RuleProblem ? err.part : { key: 'statusApplyFailed', vars: { detail: String((err as Error)?.message ?? err) } }]));
    }
  }

  /** Served by the native data plane (web.edge.ts). */
  get native(): boolean {
    return this.serving instanceof EdgeServing;
  }

  /** Threads serving now (1 on the main thread). */
  get servingThreads(): number {
    return this.serving.threads;
  }

  /** The main thread serves now (no serving thread does). */
  get onMainThread(): boolean {
    return this.serving.onMain;
  }

  /** Runs `job` once no switch of serving threads is under way; a switch waits for it. */
  private async track<T>(job: () => Promise<T>): Promise<T> {
    while (this.switching) await this.switching;
    const p = job();
    this.busy.add(p);
    try {
      return await p;
    } finally {
      this.busy.delete(p);
    }
  }

  /**
   * A running plain-HTTP rule answers ACME HTTP-01 tokens given for its port (the daemon's
   * `httpChallenges`): a change of the port's tokens applies the rule again in place, connections
   * carry on. Returns the leave.
   */
  private answerChallenges(run: Run): () => void {
    if (run.rule.protocol !== 'http') return () => {};
    return this.d.challenges.answer(run.rule.port, run.rule.name, () =>
      this.track(async () => {
        if (this.runs.get(run.key) !== run || !run.serving) return;
        await this.serving.apply(run.key, await this.plan(run.key, run.rule));
      }),
    );
  }

  /** The rule's certificates as the store and files give them: `auto` is the store's certificate ordered for the rule. */
  private sources(key: string, rule: WebRule): CertSource[] {
    return rule.certs.map((c): CertSource => (c.source === 'auto' ? { source: 'store', cert: this.d.orders().nameFor(owner(key)), key: '', domains: c.domains } : { ...c, source: c.source }));
  }

  /** The rule's automatic certificate is not issued yet: a self-signed one answers meanwhile. */
  private autoPending(key: string, rule: WebRule): boolean {
    return autoCertOf(rule) !== undefined && this.d.certificates.get(this.d.orders().nameFor(owner(key))) === undefined;
  }

  /** Self-signed stand-ins by rule, made again only when the names change. */
  private standIns = new Map<string, TlsCert>();

  private standIn(key: string, names: string[]): TlsCert {
    const have = this.standIns.get(key);
    if (have && have.names.join() === names.join()) return have;
    const made = selfSigned(names.length ? names : ['localhost']);
    this.standIns.set(key, made);
    return made;
  }

  /** The rule with its certificates read and checked (only an https rule has any to read). */
  private async plan(key: string, rule: WebRule): Promise<WebPlan> {
    if (rule.protocol !== 'https') {
      const tokens = this.d.challenges.tokens(rule.port);
      return { rule, certs: [], ...(tokens.size ? { challenges: Object.fromEntries(tokens) } : {}) };
    }
    if (rule.certs.length === 0) throw new RuleProblem({ key: 'statusCertNeeded' }, false);
    const pending = this.autoPending(key, rule);
    const ordered = this.d.orders().nameFor(owner(key));
    const sources = this.sources(key, rule).filter((c) => !(pending && c.source === 'store' && c.cert === ordered));
    awaitStoreCerts(this.d.certificates, sources);
    try {
      const certs = await this.d.certificates.resolve(sources);
      if (pending) certs.push(this.standIn(key, autoCertNames(rule, autoCertOf(rule)!)));
      else this.standIns.delete(key);
      return { rule, certs };
    } catch (err) {
      if (err instanceof TlsError) throw new RuleProblem(err.msg, err.retry);
      throw err;
    }
  }

  /** What the rule runs with but should not: the serving side's warnings and expired certificates. */
  private report(run: Run, plan: WebPlan, warnings: Msg[]): void {
    const now = Date.now();
    const expired: Msg[] = plan.certs.flatMap((c, i) =>
      c.notAfter < now ? [{ key: 'certExpired' as const, vars: { n: i + 1, names: c.names.join(', '), date: new Date(c.notAfter).toISOString().slice(0, 10) } }] : [],
    );
    run.notes = [...warnings, ...expired];
    this.tell(run);
  }

  /** The rule's status: the last apply's notes, and where its automatic certificate stands. */
  private tell(run: Run): void {
    const cert = autoCertOf(run.rule);
    if (cert && run.orderProblem) return run.ctx.report([...run.notes, { key: 'certAutoFailed', vars: { detail: run.orderProblem } }]);
    if (run.notes.length) return run.ctx.report(run.notes);
    // Ordering is not a problem: the stand-in serves until the certificate comes.
    if (cert && this.autoPending(run.key, run.rule)) return run.ctx.report([{ key: 'certAutoOrdering', vars: { names: autoCertNames(run.rule, cert).join(', ') } }], 'waiting');
    run.ctx.report(null);
  }

  /**
   * Asks the certificates module for the rule's automatic certificate (ordered, or changed to the
   * rule's names), and hears how its orders end; a rule without one lets go of what it had. A
   * refusal (the certificates module off) is the rule's status, not a stop: it serves meanwhile.
   */
  private async followOrder(run: Run): Promise<void> {
    const order = autoOrderOf(run.rule);
    const orders = this.d.orders();
    if (!order) {
      run.unwatchOrder();
      run.unwatchOrder = () => {};
      run.orderProblem = null;
      await orders.release(owner(run.key)).catch(() => undefined);
      return;
    }
    try {
      await orders.ensure({ ...owner(run.key), name: run.rule.name }, order);
      run.orderProblem = orders.problem(owner(run.key));
    } catch (err) {
      run.orderProblem = errorMsg(err);
    }
    run.unwatchOrder();
    run.unwatchOrder = orders.watch(owner(run.key), (problem) => {
      run.orderProblem = problem;
      this.tell(run);
    });
    this.tell(run);
  }

  private async open(run: Run, plan: WebPlan): Promise<void> {
    const warnings = await this.serving.open(run.key, plan, {
      note: (line) => {
        run.backends.heard(line);
        run.ctx.note(line);
        run.ctx.log.warn(line, { rule: run.key });
      },
    });
    run.serving = true;
    const url = `${run.rule.protocol}://${fmtAddr(listenHost(run.rule), run.rule.port)}`;
    const threads = this.serving.threads;
    run.ctx.note(
      this.serving.onMain
        ? { key: 'webListening', vars: { url } }
        : threads === 1
          ? { key: 'webListeningOneThread', vars: { url } }
          : { key: 'webListeningThreads', vars: { url, threads } },
    );
    this.report(run, plan, warnings);
  }

  start(rule: WebRule, ctx: RuleContext<WebConfigure>): Promise<RuleHandle<WebRule, WebRunFigures>> {
    return this.track(async () => {
      const run: Run = {
        key: ctx.key,
        rule,
        ctx,
        serving: false,
        firewall: null,
        backends: new BackendHealth(),
        leaveChallenges: () => {},
        companion: null,
        notes: [],
        orderProblem: null,
        unwatchOrder: () => {},
      };
      const plan = await this.plan(run.key, rule);
      // The companion first: an automatic certificate's order needs it, and a port it cannot have stops the rule.
      if (rule.protocol === 'https' && rule.httpRedirectPort) {
        run.companion = new HttpCompanion(rule, this.d.challenges);
        await run.companion.open();
      }
      try {
        await this.open(run, plan);
      } catch (err) {
        await run.companion?.close();
        throw err;
      }
      this.runs.set(run.key, run);
      run.leaveChallenges = this.answerChallenges(run);
      await this.followOrder(run);
      run.firewall = await applyFirewall(this.firewall, run.key, rule);
      if (run.firewall) ctx.note(firewallPart(run.firewall));
      return this.handle(run);
    });
  }

  private handle(run: Run): RuleHandle<WebRule, WebRunFigures> {
    return {
      stop: () =>
        this.track(async () => {
          if (this.runs.get(run.key) === run) this.runs.delete(run.key);
          run.leaveChallenges();
          run.unwatchOrder();
          await run.companion?.close();
          await this.firewall.close(run.key);
          if (run.serving) await this.serving.stop(run.key);
          run.serving = false;
        }),
      update: (next) =>
        this.track(async () => {
          // Another address, port or protocol is another listener: the kit restarts the rule.
          if (!run.serving || listenIdOf(next) !== listenIdOf(run.rule) || next.httpRedirectPort !== run.rule.httpRedirectPort) return false;
          const plan = await this.plan(run.key, next);
          const warnings = await this.serving.apply(run.key, plan);
          run.rule = next;
          const before = run.firewall;
          run.firewall = await applyFirewall(this.firewall, run.key, next);
          if (run.firewall && !before) run.ctx.note(firewallPart(run.firewall));
          run.companion?.retarget(next);
          this.report(run, plan, warnings);
          await this.followOrder(run);
          return true;
        }),
      // Zeros for a rule not served (after a switch of threads that could not start it again).
      figures: async () => ({ traffic: await this.serving.figures(run.key), firewall: run.firewall, backends: run.backends.states(run.rule) }),
    };
  }

  accessLog(key: string, limit: number): AccessLogPage | Promise<AccessLogPage> {
    return this.runs.get(key)?.serving ? this.serving.accessLog(key, limit) : { list: [], total: 0 };
  }

  /** The module setting: resolves once every running rule serves from the threads it asks for. */
  async configure(settings: WebConfigure): Promise<void> {
    while (this.switching) await this.switching;
    const threads = servingThreads(settings, this.d.env.webThreads);
    if (sameChoice(threads, this.threads, this.native)) {
      this.threads = threads;
      return;
    }
    this.switching = (async () => {
      await Promise.allSettled([...this.busy]);
      // The main thread counts as no serving thread.
      const from = this.serving.onMain ? 0 : this.serving.threads;
      await this.serving.close();
      this.threads = threads;
      this.serving = createServing(threads, { ...this.d, engine: this.d.env.webEngine ?? 'native' });
      for (const run of this.runs.values()) {
        run.serving = false;
        try {
          await this.open(run, await this.plan(run.key, run.rule));
        } catch (err) {
          // It stays in the list with why; saving or switching it again starts it afresh.
          const problem: Msg = err instanceof RuleProblem ? err.part : { key: 'statusApplyFailed', vars: { detail: String((err as Error)?.message ?? err) } };
          run.ctx.report([problem]);
        }
      }
      this.d.say.info({ key: 'webThreadsMoved', vars: { from, to: this.serving.onMain ? 0 : this.serving.threads, rules: this.runs.size } });
    })();
    try {
      await this.switching;
    } finally {
      this.switching = null;
    }
  }

  connections(): number {
    return this.serving.connections();
  }

  async close(): Promise<void> {
    this.unsubscribe();
    while (this.switching) await this.switching;
    for (const [key, run] of this.runs) {
      run.leaveChallenges();
      run.unwatchOrder();
      await run.companion?.close();
      await this.firewall.close(key);
    }
    this.runs.clear();
    await this.serving.close();
  }
}
