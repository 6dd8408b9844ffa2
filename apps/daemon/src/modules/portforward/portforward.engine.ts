/**
 * The port forwarding engine: opens a rule's listeners and hands back its handle. An edit keeps the
 * sockets whose address did not change and swaps the rest in place, so established connections (of
 * this rule and of every other) carry on. Listeners that cannot open while others run are the rule's
 * reported problem, retried here; a rule none of whose listeners opens is a RuleProblem (the rule
 * runtime shows it and retries). What all rules share, the global counters and limits and the native
 * relay, lives here too; the TCP and UDP parts are portforward.tcp.ts and portforward.udp.ts.
 */
import type { Msg, PortforwardConfigure, PortforwardRule, PortforwardStats } from '@lucky/contracts';
import { RuleProblem, type Engine, type RuleContext, type RuleHandle } from '../../core/engine.js';
import { awaitStoreCerts, followStoreCerts } from '../../core/rulecerts.js';
import type { CertificatesService } from '../../core/services/certificates.js';
import type { ServerTls } from '../../lib/tls/contexts.js';
import { TlsError, type CertSource } from '../../lib/tls/pem.js';
import { planListeners, type ListenSpec } from './portforward.plan.js';
import { ModuleState, RuleRun } from './portforward.run.js';
import { closeTcpListener, listenTcp } from './portforward.tcp.js';
import { closeUdpListener, listenUdp } from './portforward.udp.js';

/** Listeners that could not open while others run are retried this often. */
const RETRY_LISTEN_MS = 10_000;

export interface PortforwardEngineOptions {
  settings: PortforwardConfigure;
  /** LUCKY_NATIVE_RELAY: plain TCP pairs and UDP sessions go to the native relay where it is built. */
  nativeRelay: boolean;
  /** The certificate store, for listeners that name its certificates. */
  certificates: CertificatesService;
  /** How often listeners that could not open are tried again (10 s). */
  retryListenMs?: number;
}

export class PortforwardEngine implements Engine<PortforwardRule, PortforwardConfigure, PortforwardStats> {
  private shared: ModuleState;
  private runs = new Set<RuleRun>();
  private retryListenMs: number;
  private certificates: CertificatesService;

  constructor(o: PortforwardEngineOptions) {
    this.certificates = o.certificates;
    this.shared = new ModuleState(o.settings, o.nativeRelay);
    this.retryListenMs = o.retryListenMs ?? RETRY_LISTEN_MS;
  }

  async start(rule: PortforwardRule, ctx: RuleContext<PortforwardConfigure>): Promise<RuleHandle<PortforwardRule, PortforwardStats>> {
    const run = new RuleRun(this.shared, ctx, rule, await this.serverTls(rule));
    this.follow(run);
    this.runs.add(run);
    const wanted = planListeners(rule);
    // A rule of one listener has its failure said once, by the runtime's "could not start".
    await Promise.all(wanted.map((spec) => this.open(run, spec, wanted.length > 1)));
    if (run.listening === 0 && run.failed.size > 0) {
      const first = [...run.failed.values()][0]!.why;
      this.teardown(run);
      throw new RuleProblem(wanted.length === 1 ? first : { key: 'pfNoListener', vars: { reason: first, n: wanted.length } });
    }
    this.settle(run, wanted.length);
    return {
      stop: () => run.enqueue(() => this.teardown(run)),
      update: (next) => run.enqueue(() => this.update(run, next)),
      figures: () => run.figures(),
    };
  }

  /**
   * An edited rule in place: listeners no longer wanted close (their connections finish on their
   * own), kept ones forward new connections to their new target port, new ones open. A rule that
   * can no longer open any listener keeps its connections and says why, retried like any listener;
   * a TLS pair that no longer loads restarts the rule, whose start then says why.
   */
  private async update(run: RuleRun, rule: PortforwardRule): Promise<boolean> {
    if (run.stopped) return false;
    let tls: ServerTls | null;
    try {
      tls = await this.serverTls(rule);
    } catch {
      return false;
    }
    run.set(rule, tls);
    this.follow(run);
    const wanted = planListeners(rule);
    const ids = new Set(wanted.map((s) => s.id));
    for (const [id, l] of run.tcp) {
      if (ids.has(id)) continue;
      run.tcp.delete(id);
      closeTcpListener(l);
      run.note({ key: 'pfStoppedListening', vars: { listener: l.name } });
    }
    for (const [id, l] of run.udp) {
      if (ids.has(id)) continue;
      run.udp.delete(id);
      closeUdpListener(run, l);
      run.note({ key: 'pfStoppedListening', vars: { listener: l.name } });
    }
    run.failed.clear();
    const opening: Promise<void>[] = [];
    for (const spec of wanted) {
      const kept = run.tcp.get(spec.id) ?? run.udp.get(spec.id);
      if (kept) kept.spec = spec;
      else opening.push(this.open(run, spec, true));
    }
    await Promise.all(opening);
    this.settle(run, wanted.length);
    return true;
  }

  private async open(run: RuleRun, spec: ListenSpec, noteFailure: boolean): Promise<void> {
    let name: string;
    if (spec.proto === 'tcp') {
      const l = await listenTcp(run, spec);
      if ('key' in l) return this.failed(run, spec, l, noteFailure);
      run.tcp.set(spec.id, l);
      name = l.name;
    } else {
      const l = await listenUdp(run, spec);
      if ('key' in l) return this.failed(run, spec, l, noteFailure);
      run.udp.set(spec.id, l);
      name = l.name;
    }
    run.note({ key: 'pfListening', vars: { listener: name, port: spec.targetPort } });
  }

  private failed(run: RuleRun, spec: ListenSpec, why: Msg, noteFailure: boolean): void {
    run.failed.set(spec.id, { spec, why });
    if (noteFailure) run.note(why);
  }

  /** After a start or an edit: the rule's log and status say how many listeners run, and the missing ones are retried. */
  private settle(run: RuleRun, wanted: number): void {
    run.note({ key: 'pfListenersUp', vars: { n: run.listening, m: wanted } });
    this.report(run);
    if (run.failed.size === 0) return;
    run.ctx.log.warn({ key: 'pfListenerDownLog', vars: { name: run.rule.name, reason: [...run.failed.values()][0]!.why } }, { rule: run.ctx.key });
    this.scheduleRetry(run);
  }

  /** The status: running, or the first listener's problem, how many more, and how many listeners run. */
  private report(run: RuleRun): void {
    if (run.failed.size === 0) return run.ctx.report(null);
    const parts: Msg[] = [[...run.failed.values()][0]!.why];
    if (run.failed.size > 1) parts.push({ key: 'statusMoreProblems', vars: { n: run.failed.size - 1 } });
    parts.push({ key: 'pfListenersUp', vars: { n: run.listening, m: run.listening + run.failed.size } });
    run.ctx.report(parts);
  }

  private scheduleRetry(run: RuleRun): void {
    if (run.retry || run.stopped || run.failed.size === 0) return;
    run.retry = setTimeout(() => {
      run.retry = null;
      void run.enqueue(async () => {
        if (run.stopped || run.failed.size === 0) return;
        const specs = [...run.failed.values()].map((f) => f.spec);
        run.failed.clear();
        // Quiet: a listener still failing was said when it first failed.
        await Promise.all(specs.map((s) => this.open(run, s, false)));
        this.report(run);
        this.scheduleRetry(run);
      });
    }, this.retryListenMs);
    run.retry.unref();
  }

  private teardown(run: RuleRun): void {
    run.stopped = true;
    run.unfollow();
    if (run.retry) clearTimeout(run.retry);
    run.retry = null;
    for (const l of run.tcp.values()) closeTcpListener(l);
    for (const l of run.udp.values()) closeUdpListener(run, l);
    for (const c of [...run.conns]) c.end({ key: 'pfEndRuleStopped' });
    run.tcp.clear();
    run.udp.clear();
    run.failed.clear();
    this.runs.delete(run);
  }

  /** Module settings changed: limits and defaults apply to new connections at once. */
  configure(settings: PortforwardConfigure): void {
    this.shared.cfg = settings;
    for (const run of this.runs) run.reconfigure();
  }

  connections(): number {
    return this.shared.tcpActive + this.shared.udpActive;
  }

  /** TCP pairs and UDP sessions the native relay is moving right now. */
  nativeFlows(): number {
    let n = 0;
    for (const run of this.runs) {
      for (const c of run.conns) if (c.native) n++;
      for (const l of run.udp.values()) for (const s of l.sessions.values()) if (s.native) n++;
    }
    return n;
  }

  async close(): Promise<void> {
    for (const run of [...this.runs]) await run.enqueue(() => this.teardown(run));
  }

  /**
   * The listener's certificates; a pair that does not load stops the rule until it is saved again,
   * a store certificate not there yet (being issued) is waited for.
   */
  private async serverTls(rule: PortforwardRule): Promise<ServerTls | null> {
    if (!rule.tls.listen) return null;
    awaitStoreCerts(this.certificates, certSources(rule));
    try {
      return await this.certificates.serverTls(certSources(rule), '1.2');
    } catch (err) {
      if (err instanceof TlsError) throw new RuleProblem(err.msg, err.retry);
      throw err;
    }
  }

  /** A renewed store certificate reaches new connections; open ones carry on with theirs. */
  private follow(run: RuleRun): void {
    run.unfollow();
    run.unfollow = run.rule.tls.listen ? followStoreCerts(this.certificates, certSources(run.rule), '1.2', run.ctx, (next) => (run.tls = next)) : () => {};
  }
}

/** Where a TLS listener's certificates come from: its PEM fields, or certificates of the store by name. */
function certSources(rule: PortforwardRule): CertSource[] {
  if (rule.tls.certSource === 'store') return rule.tls.certNames.map((name) => ({ source: 'store', cert: name, key: '', domains: [] }));
  return [{ source: 'pem', cert: rule.tls.cert, key: rule.tls.key, domains: [] }];
}
