/**
 * The Publish engine: a published service's start makes or brings up to date its parts in their
 * own modules (a DDNS task through `dnsProviders`, a web rule with automatic HTTPS through `rules`)
 * and undoes what it made when a later part cannot be made; then it keeps the router forwards
 * (`portMappings`), sends the router's public address through its DDNS task whenever it changes,
 * and looks at every link of the chain on each check. A stop lets go of the router forwards; the
 * parts stay until the service is deleted (the module's `removed`).
 */
import { networkInterfaces } from 'node:os';
import type { Msg, PublishConfigure, PublishRule, RuleOwner } from '@lucky/contracts';
import { RuleProblem, type Engine, type RuleContext, type RuleHandle } from '../../core/engine.js';
import { errorMsg } from '../../core/envelope.js';
import type { CertificateOrdersService } from '../../core/services/certificateOrders.js';
import type { CertificatesService } from '../../core/services/certificates.js';
import type { DnsProvidersService } from '../../core/services/dnsProviders.js';
import type { PortMapping, PortMappingsService } from '../../core/services/portMappings.js';
import type { RulesService } from '../../core/services/rules.js';
import type { AuthorityOptions } from '../../lib/dns/authoritative.js';
import { checkCertificate, checkDns, checkRouter, checkTarget, checkWeb, type Check } from './publish.checks.js';
import { forwardsOf, urlOf, webRuleOf } from './publish.parts.js';
import { probeTarget } from './publish.target.js';

export interface PublishDeps {
  rules(): RulesService;
  dns(): DnsProvidersService;
  certificates(): CertificatesService;
  orders(): CertificateOrdersService;
  mappings(): Promise<PortMappingsService>;
  /** How the DNS check finds a zone's name servers: the system's resolver unless a test says otherwise. */
  lookup?: AuthorityOptions;
}

export interface PublishFigures {
  url: string;
  publicAddress: string;
  parts: { ddns: string | null; web: string | null; certificate: string | null };
  checks: Check[];
}

/** This host's first private IPv4 address: where the hints tell the user to forward to. */
function lanAddress(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}

export const ownerOf = (key: string, name: string): RuleOwner => ({ module: 'publish', key, name });

class PublishRun {
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  checks: Check[] = [];
  publicAddress = '';
  private looking: Promise<void> | null = null;

  constructor(
    private d: PublishDeps,
    private rule: PublishRule,
    private ctx: RuleContext<PublishConfigure>,
    readonly task: string,
    readonly web: string,
    private mappings: PortMapping[],
  ) {
    for (const m of mappings) m.onChange(() => void this.look());
    // The certificate's light turns the moment it is stored, not at the next check.
    const certName = d.orders().nameFor({ module: 'web', key: web });
    this.offCert = d.certificates().onChange((name) => name === certName && void this.look());
  }

  private offCert: () => void;

  private lan = lanAddress();

  private forwards(): string {
    return forwardsOf(this.rule)
      .map((f) => `TCP ${f.external} → ${f.internal}`)
      .join(', ');
  }

  /**
   * The public address: the router's when it maps (sent through the DDNS task whenever the task
   * holds another: a new address, or a task started again on its own source), else what the task found.
   */
  private async address(): Promise<string> {
    const fromRouter = this.mappings.map((m) => m.state().externalAddress).find((a) => a);
    const held = (await this.d.dns().addresses(this.task))?.ipv4 ?? '';
    if (!fromRouter) return held;
    if (held !== fromRouter) {
      try {
        await this.d.dns().publish(this.task, { ipv4: fromRouter }, 'publish');
        this.ctx.note({ key: 'publishAddressPublished', vars: { ip: fromRouter } });
      } catch (err) {
        this.ctx.note({ key: 'publishAddressFailed', vars: { ip: fromRouter, detail: errorMsg(err) } });
      }
    }
    return fromRouter;
  }

  /** One look at every link; the status says the worst of them. */
  look(): Promise<void> {
    this.looking ??= this.lookNow().finally(() => {
      this.looking = null;
      if (this.stopped) return;
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.look(), this.ctx.settings().checkInterval * 1000);
      this.timer.unref();
    });
    return this.looking;
  }

  private async lookNow(): Promise<void> {
    const rule = this.rule;
    this.publicAddress = await this.address().catch(() => '');
    const task = this.d.dns().tasks().find((t) => t.key === this.task);
    const webRule = await this.d.rules().get('web', this.web).catch(() => undefined);
    const certName = this.d.orders().nameFor({ module: 'web', key: this.web });
    const [dns, target] = await Promise.all([checkDns(rule.names, this.publicAddress, task, this.d.lookup), probeTarget(rule.target)]);
    const checks = [
      dns,
      checkCertificate(rule.names, this.d.certificates().get(certName), this.d.orders().problem({ module: 'web', key: this.web }), this.lan, rule.httpPort),
      checkWeb(rule.name, webRule?.status),
      checkTarget(rule.target, target),
      checkRouter(rule.mapRouter, this.mappings.map((m) => m.state()), this.forwards(), this.lan),
    ];
    if (this.stopped) return;
    this.checks = checks;
    const failed = checks.filter((c) => c.state === 'failed');
    const pending = checks.filter((c) => c.state === 'pending');
    if (failed.length) this.ctx.report(failed.map((c) => c.msg));
    else if (pending.length) this.ctx.report(pending.map((c) => c.msg), 'waiting');
    else this.ctx.report(null);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.offCert();
    if (this.timer) clearTimeout(this.timer);
    await this.looking?.catch(() => undefined);
    await Promise.all(this.mappings.map((m) => m.close()));
  }
}

export class PublishEngine implements Engine<PublishRule, PublishConfigure, PublishFigures> {
  private runs = new Map<string, PublishRun>();

  constructor(private d: PublishDeps) {}

  /**
   * The parts, made or brought up to date; what this start made is undone when a later part
   * cannot be made (a port taken, a name outside the task's zone), and the start fails naming it.
   */
  private async parts(key: string, rule: PublishRule, ctx: RuleContext<PublishConfigure>, ready: (task: string) => Promise<void>): Promise<{ task: string; web: string }> {
    const owner = ownerOf(key, rule.name);
    const undo: Array<() => Promise<void>> = [];
    let part: Msg = { key: 'publishPartDdns' };
    try {
      const hadTask = (await this.d.rules().owned('ddns', owner)).length > 0;
      const task = await this.d.dns().ensureTask(owner, { template: rule.dnsTask, names: rule.names });
      if (!hadTask) undo.push(() => this.d.dns().releaseTask(owner));
      ctx.note({ key: hadTask ? 'publishPartChanged' : 'publishPartMade', vars: { part, name: rule.name } });
      // The names must point here before the certificate is ordered, or the CA's first look fails.
      await ready(task);
      part = { key: 'publishPartWeb' };
      const have = (await this.d.rules().owned('web', owner))[0];
      let web: string;
      if (have) {
        web = have.key;
        await this.d.rules().update('web', web, webRuleOf(rule));
      } else {
        web = await this.d.rules().create('web', webRuleOf(rule), owner);
        undo.push(() => this.d.rules().remove('web', web));
      }
      ctx.note({ key: have ? 'publishPartChanged' : 'publishPartMade', vars: { part, name: rule.name } });
      return { task, web };
    } catch (err) {
      for (const u of undo.reverse()) await u().catch(() => undefined);
      throw new RuleProblem({ key: 'publishPartFailed', vars: { part, detail: errorMsg(err) } }, false);
    }
  }

  async start(rule: PublishRule, ctx: RuleContext<PublishConfigure>): Promise<RuleHandle<PublishRule, PublishFigures>> {
    // The router first: the CA checks the name through it as soon as the web rule orders.
    const mappings: PortMapping[] = [];
    if (rule.mapRouter) {
      const service = await this.d.mappings();
      for (const f of forwardsOf(rule)) {
        mappings.push(
          service.keep({
            protocol: 'tcp',
            internalPort: f.internal,
            externalPort: f.external,
            description: `Lucky publish ${rule.name}`,
            upnpUrl: rule.upnpUrl,
            checkEveryMs: ctx.settings().checkInterval * 1000,
          }),
        );
      }
      await Promise.all(mappings.map((m) => m.check()));
    }
    const ready = async (task: string) => {
      const address = mappings.map((m) => m.state().externalAddress).find((a) => a);
      if (address) {
        await this.d.dns().publish(task, { ipv4: address }, 'publish');
        return;
      }
      // Without the router's word, the task's own source: its first sync, bounded.
      for (let i = 0; i < 20 && !(await this.d.dns().addresses(task))?.ipv4; i++) await new Promise((r) => setTimeout(r, 500));
    };
    let parts: { task: string; web: string };
    try {
      parts = await this.parts(ctx.key, rule, ctx, ready);
    } catch (err) {
      await Promise.all(mappings.map((m) => m.close()));
      throw err;
    }
    const { task, web } = parts;
    ctx.note({ key: 'publishUrl', vars: { url: urlOf(rule) } });
    const run = new PublishRun(this.d, rule, ctx, task, web, mappings);
    this.runs.set(ctx.key, run);
    void run.look();
    return {
      stop: async () => {
        if (this.runs.get(ctx.key) === run) this.runs.delete(ctx.key);
        await run.stop();
      },
      figures: () => ({
        url: urlOf(rule),
        publicAddress: run.publicAddress,
        parts: { ddns: run.task, web: run.web, certificate: this.d.orders().nameFor({ module: 'web', key: run.web }) },
        checks: run.checks,
      }),
    };
  }

  /** Looks at every link of a running service now ("run now"); false when it does not run. */
  async recheck(key: string): Promise<boolean> {
    const run = this.runs.get(key);
    if (!run) return false;
    await run.look();
    return true;
  }
}
