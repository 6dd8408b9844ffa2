/**
 * The Publish engine: a published service's start makes or brings up to date its parts in their
 * own modules (a DDNS task through `dnsProviders`; in STUN mode a STUN rule; a web rule with
 * automatic HTTPS; each through `rules`) and undoes what it made when a later part cannot be made.
 * Then, direct: it keeps the router forwards (`portMappings`) and sends the router's public address
 * through its DDNS task whenever it changes; STUN: it follows the address and port the STUN rule
 * holds (`stunAddresses`; the rule sends the address through the task itself) and writes the port
 * records. Every check looks at each link of the chain. A stop lets go of the router forwards; the
 * parts stay until the service is deleted (the module's `removed`).
 */
import { networkInterfaces } from 'node:os';
import type { Msg, PublishConfigure, PublishRule, RuleModuleKey, RuleOwner, ModuleRuleInput } from '@lucky/contracts';
import { RuleProblem, type Engine, type RuleContext, type RuleHandle } from '../../core/engine.js';
import { errorMsg } from '../../core/envelope.js';
import type { CertificateOrdersService } from '../../core/services/certificateOrders.js';
import type { CertificatesService } from '../../core/services/certificates.js';
import type { DnsProvidersService } from '../../core/services/dnsProviders.js';
import type { PortMapping, PortMappingsService } from '../../core/services/portMappings.js';
import type { RulesService } from '../../core/services/rules.js';
import type { StunAddress, StunAddressesService } from '../../core/services/stunAddresses.js';
import type { AuthorityOptions } from '../../lib/dns/authoritative.js';
import { checkCertificate, checkDns, checkRouter, checkStun, checkTarget, checkWeb, type Check } from './publish.checks.js';
import { forwardsOf, portRecordsOf, publicPortOf, stunRuleOf, urlOf, webRuleOf, type PortRecord } from './publish.parts.js';
import { recordLine } from '../../lib/dns/domain.js';
import { probeTarget } from './publish.target.js';

export interface PublishDeps {
  rules(): RulesService;
  dns(): DnsProvidersService;
  certificates(): CertificatesService;
  orders(): CertificateOrdersService;
  mappings(): Promise<PortMappingsService>;
  stun(): Promise<StunAddressesService>;
  /** How the DNS check finds a zone's name servers: the system's resolver unless a test says otherwise. */
  lookup?: AuthorityOptions;
}

export interface PublishFigures {
  url: string;
  publicAddress: string;
  publicPort: number | null;
  parts: { ddns: string | null; web: string | null; certificate: string | null; stun: string | null };
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

/** How long a new STUN rule may take to hear its first server before the service gives up. */
const STUN_FIRST_ADDRESS_MS = 30_000;

interface Parts {
  task: string;
  web: string;
  /** STUN mode's rule. */
  stun: string | null;
}

class PublishRun {
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  checks: Check[] = [];
  publicAddress = '';
  /** STUN mode: the public port the STUN rule holds. */
  stunPort: number | null = null;
  private looking: Promise<void> | null = null;
  /** STUN mode: the port the port records were last written with (null: not yet, or not by this provider). */
  private recordsPort: number | null = null;
  private offs: Array<() => void> = [];
  private lan = lanAddress();

  constructor(
    private d: PublishDeps,
    private rule: PublishRule,
    private ctx: RuleContext<PublishConfigure>,
    readonly parts: Parts,
    private mappings: PortMapping[],
    private stun: StunAddressesService | null,
  ) {
    for (const m of mappings) m.onChange(() => void this.look());
    if (stun && parts.stun) this.offs.push(stun.onChange((key) => key === parts.stun && void this.look()));
    // The certificate's light turns the moment it is stored, not at the next check.
    const certName = d.orders().nameFor({ module: 'web', key: parts.web });
    this.offs.push(d.certificates().onChange((name) => name === certName && void this.look()));
  }

  private forwards(): string {
    return forwardsOf(this.rule)
      .map((f) => `TCP ${f.external} → ${f.internal}`)
      .join(', ');
  }

  private stunNow(): StunAddress | null {
    return this.stun && this.parts.stun ? this.stun.current(this.parts.stun) : null;
  }

  /**
   * The public address: the router's (direct, when it maps) or the STUN rule's, sent through the
   * DDNS task whenever the task holds another (a new address, or a task started again on its own
   * source); else what the task found.
   */
  private async address(): Promise<string> {
    const seen = this.rule.reach === 'stun' ? (this.stunNow()?.ip ?? '') : (this.mappings.map((m) => m.state().externalAddress).find((a) => a) ?? '');
    const held = (await this.d.dns().addresses(this.parts.task))?.ipv4 ?? '';
    if (!seen) return held;
    if (held !== seen) {
      try {
        await this.d.dns().publish(this.parts.task, { ipv4: seen }, 'publish');
        this.ctx.note({ key: 'publishAddressPublished', vars: { ip: seen } });
      } catch (err) {
        this.ctx.note({ key: 'publishAddressFailed', vars: { ip: seen, detail: errorMsg(err) } });
      }
    }
    return seen;
  }

  /** STUN mode: the port records written again whenever the public port moved. */
  private async portRecords(): Promise<PortRecord[]> {
    const port = this.stunPort;
    if (port === null) return [];
    const records = writablePortRecords(this.d, this.parts.task, portRecordsOf(this.rule, port));
    if (this.recordsPort === port) return records;
    try {
      await writePortRecords(this.d, this.parts.task, records);
      this.recordsPort = port;
      if (records.length) this.ctx.note({ key: 'publishPortRecords', vars: { port, records: records.map((r) => `${r.type} ${r.name}`).join(', ') } });
    } catch (err) {
      this.ctx.note({ key: 'publishPortRecordsFailed', vars: { detail: errorMsg(err) } });
    }
    return records;
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
    const { rule, parts } = this;
    const stunNow = this.stunNow();
    this.stunPort = stunNow?.port ?? null;
    this.publicAddress = await this.address().catch(() => '');
    const records = rule.reach === 'stun' ? await this.portRecords() : [];
    const task = this.d.dns().tasks().find((t) => t.key === parts.task);
    const webRule = await this.d.rules().get('web', parts.web).catch(() => undefined);
    const certName = this.d.orders().nameFor({ module: 'web', key: parts.web });
    const [dns, target] = await Promise.all([checkDns(rule.names, this.publicAddress, task, this.d.lookup, records), probeTarget(rule.target)]);
    const certHint: Msg =
      rule.reach === 'stun'
        ? { key: 'publishCertHintDns', vars: { task: task?.name ?? parts.task } }
        : { key: 'publishCertHint', vars: { name: rule.names[0] ?? '', lan: `${this.lan}:${rule.httpPort}` } };
    const reach =
      rule.reach === 'stun'
        ? checkStun(rule.name, stunNow, (await this.d.rules().get('stun', parts.stun ?? '').catch(() => undefined))?.status, rule.mapRouter)
        : checkRouter(rule.mapRouter, this.mappings.map((m) => m.state()), this.forwards(), this.lan);
    const checks = [
      dns,
      checkCertificate(rule.names, this.d.certificates().get(certName), this.d.orders().problem({ module: 'web', key: parts.web }), certHint),
      checkWeb(rule.name, webRule?.status),
      checkTarget(rule.target, target),
      reach,
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
    for (const off of this.offs) off();
    if (this.timer) clearTimeout(this.timer);
    await this.looking?.catch(() => undefined);
    await Promise.all(this.mappings.map((m) => m.close()));
  }
}

/** The port records the task's provider can write (an HTTPS or SRV record where its API has the type). */
function writablePortRecords(d: PublishDeps, task: string, records: PortRecord[]): PortRecord[] {
  const provider = d.dns().tasks().find((t) => t.key === task)?.provider;
  const types = d.dns().providers().find((p) => p.name === provider)?.records ?? [];
  return records.filter((r) => types.includes(r.type));
}

async function writePortRecords(d: PublishDeps, task: string, records: PortRecord[]): Promise<void> {
  const client = d.dns().taskClient(task);
  const domains = d.dns().tasks().find((t) => t.key === task)?.domains ?? [];
  if (!client) return;
  for (const r of records) await client.set({ domain: recordLine(r.name, domains), type: r.type, value: r.value, ttl: 60 });
}

export class PublishEngine implements Engine<PublishRule, PublishConfigure, PublishFigures> {
  private runs = new Map<string, PublishRun>();

  constructor(private d: PublishDeps) {}

  /** A rule of the owner's in `module`, changed to `raw` or created (and then undone on failure). */
  private async ensureOwned<M extends RuleModuleKey>(module: M, owner: RuleOwner, raw: ModuleRuleInput<M>, undo: Array<() => Promise<void>>, ctx: RuleContext<PublishConfigure>, part: Msg): Promise<string> {
    const have = (await this.d.rules().owned(module, owner))[0];
    let key: string;
    if (have) {
      key = have.key;
      await this.d.rules().update(module, key, raw);
    } else {
      key = await this.d.rules().create(module, raw, owner);
      undo.push(() => this.d.rules().remove(module, key));
    }
    ctx.note({ key: have ? 'publishPartChanged' : 'publishPartMade', vars: { part, name: owner.name } });
    return key;
  }

  /** STUN mode: waits for the STUN rule's first public address; throws what its status says when none comes. */
  private async stunReady(stun: string): Promise<StunAddress> {
    const service = await this.d.stun();
    const end = Date.now() + STUN_FIRST_ADDRESS_MS;
    for (;;) {
      const now = service.current(stun);
      if (now) return now;
      if (Date.now() > end) {
        const status = (await this.d.rules().get('stun', stun).catch(() => undefined))?.status;
        throw new RuleProblem({ key: 'publishStunNoAddress', vars: { seconds: STUN_FIRST_ADDRESS_MS / 1000, detail: { key: 'rawText', vars: { text: status?.message || status?.state || '' } } } }, false);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /**
   * The parts, made or brought up to date; what this start made is undone when a later part
   * cannot be made (a port taken, a name outside the task's zone, no public address), and the
   * start fails naming it. `ready` runs once the task exists (direct: the router's address sent).
   */
  private async parts(key: string, rule: PublishRule, ctx: RuleContext<PublishConfigure>, ready: (task: string) => Promise<void>): Promise<Parts> {
    const owner = ownerOf(key, rule.name);
    const undo: Array<() => Promise<void>> = [];
    let part: Msg = { key: 'publishPartDdns' };
    try {
      const hadTask = (await this.d.rules().owned('ddns', owner)).length > 0;
      const task = await this.d.dns().ensureTask(owner, { template: rule.dnsTask, names: rule.names });
      if (!hadTask) undo.push(() => this.d.dns().releaseTask(owner));
      ctx.note({ key: hadTask ? 'publishPartChanged' : 'publishPartMade', vars: { part, name: rule.name } });
      let stun: string | null = null;
      if (rule.reach === 'stun') {
        const provider = this.d.dns().tasks().find((t) => t.key === task)?.provider;
        if (!this.d.dns().providers().find((p) => p.name === provider)?.records.includes('TXT')) throw new RuleProblem({ key: 'publishStunNeedsTxt', vars: { provider: provider ?? '' } }, false);
        part = { key: 'publishPartStun' };
        stun = await this.ensureOwned('stun', owner, stunRuleOf(rule, task), undo, ctx, part);
        const addr = await this.stunReady(stun);
        // The names must point here before the certificate is ordered, or the CA's look fails.
        await this.d.dns().publish(task, { ipv4: addr.ip }, 'publish');
        await writePortRecords(this.d, task, writablePortRecords(this.d, task, portRecordsOf(rule, addr.port))).catch((err: unknown) =>
          ctx.note({ key: 'publishPortRecordsFailed', vars: { detail: errorMsg(err) } }),
        );
      } else await ready(task);
      part = { key: 'publishPartWeb' };
      const web = await this.ensureOwned('web', owner, webRuleOf(rule, task), undo, ctx, part);
      return { task, web, stun };
    } catch (err) {
      for (const u of undo.reverse()) await u().catch(() => undefined);
      throw new RuleProblem({ key: 'publishPartFailed', vars: { part, detail: errorMsg(err) } }, false);
    }
  }

  /** Direct: the router forwards, asked once before anything else (the CA checks the names through them). */
  private async routerForwards(rule: PublishRule, ctx: RuleContext<PublishConfigure>): Promise<PortMapping[]> {
    if (rule.reach !== 'direct' || !rule.mapRouter) return [];
    const service = await this.d.mappings();
    const mappings = forwardsOf(rule).map((f) =>
      service.keep({
        protocol: 'tcp',
        internalPort: f.internal,
        externalPort: f.external,
        description: `Lucky publish ${rule.name}`,
        upnpUrl: rule.upnpUrl,
        checkEveryMs: ctx.settings().checkInterval * 1000,
      }),
    );
    await Promise.all(mappings.map((m) => m.check()));
    return mappings;
  }

  async start(rule: PublishRule, ctx: RuleContext<PublishConfigure>): Promise<RuleHandle<PublishRule, PublishFigures>> {
    const mappings = await this.routerForwards(rule, ctx);
    const ready = async (task: string) => {
      const address = mappings.map((m) => m.state().externalAddress).find((a) => a);
      if (address) {
        await this.d.dns().publish(task, { ipv4: address }, 'publish');
        return;
      }
      // Without the router's word, the task's own source: its first sync, bounded.
      for (let i = 0; i < 20 && !(await this.d.dns().addresses(task))?.ipv4; i++) await new Promise((r) => setTimeout(r, 500));
    };
    let parts: Parts;
    try {
      parts = await this.parts(ctx.key, rule, ctx, ready);
    } catch (err) {
      await Promise.all(mappings.map((m) => m.close()));
      throw err;
    }
    const stun = parts.stun ? await this.d.stun() : null;
    const run = new PublishRun(this.d, rule, ctx, parts, mappings, stun);
    run.stunPort = parts.stun ? (stun?.current(parts.stun)?.port ?? null) : null;
    this.runs.set(ctx.key, run);
    ctx.note({ key: 'publishUrl', vars: { url: urlOf(rule, publicPortOf(rule, run.stunPort)) } });
    void run.look();
    return {
      stop: async () => {
        if (this.runs.get(ctx.key) === run) this.runs.delete(ctx.key);
        await run.stop();
      },
      figures: () => {
        const port = publicPortOf(rule, run.stunPort);
        return {
          url: urlOf(rule, port),
          publicAddress: run.publicAddress,
          publicPort: port,
          parts: { ddns: parts.task, web: parts.web, certificate: this.d.orders().nameFor({ module: 'web', key: parts.web }), stun: parts.stun },
          checks: run.checks,
        };
      },
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
