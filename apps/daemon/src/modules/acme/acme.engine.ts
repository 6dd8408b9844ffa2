/**
 * The certificates engine: each rule keeps one certificate of the store (by the rule's name) filled.
 * `pem`: the text is stored when the rule starts. `file`: the files are read, stored, and read again
 * when they change. `acme`: a certificate is ordered when there is none (or it lacks a name of the
 * rule), and renewed `renewBeforeDays` before it expires (at most a third of its lifetime before, so
 * short-lived certificates are not renewed over and over), or in the window the CA suggests (ARI)
 * where it offers one; a failed order keeps the certificate in use, shows the error as the rule's
 * status and is tried again with backoff (5 min doubling to 6 h). Every order step is a line of the
 * rule's log. Whatever the source, a certificate near its expiry and not renewed, a failed order and
 * (if chosen) an issued certificate call the module's webhook.
 */
import { readFile } from 'node:fs/promises';
import { ACME_DIRECTORIES, renderMsg, type AcmeConfigure, type AcmeEvent, type AcmeRule, type Msg } from '@lucky/contracts';
import { RuleProblem, type Engine, type RuleContext, type RuleHandle } from '../../core/engine.js';
import type { CertificatesService } from '../../core/services/certificates.js';
import type { DnsProvidersService } from '../../core/services/dnsProviders.js';
import type { HttpChallengesService } from '../../core/services/httpChallenges.js';
import type { WebhooksService } from '../../core/services/webhooks.js';
import { HttpClients } from '../../lib/http/clients.js';
import { MsgError, msgOf } from '../../lib/msgerror.js';
import { TlsError } from '../../lib/tls/pem.js';
import type { AuthorityOptions } from '../../lib/dns/authoritative.js';
import { ariCertId, pickInWindow, renewalInfoUrl, renewalWindow } from './acme.ari.js';
import { challengeLine } from './acme.dns.js';
import { Http01Listeners } from './acme.http01.js';
import { orderCertificate, type Solver } from './acme.order.js';
import { awaitPropagation } from './acme.propagation.js';
import type { AcmeAccounts } from './acme.store.js';

export interface AcmeFigures {
  renewAt: number | null;
}

export interface AcmeEngineDeps {
  certificates: CertificatesService;
  dnsProviders(): DnsProvidersService;
  httpChallenges(): HttpChallengesService;
  webhooks(): WebhooksService;
  accounts: AcmeAccounts;
  /** First retry after a failed order (default 5 min; doubles up to 6 h). */
  retryBaseMs?: number;
  /** Polling limit per authorization and order (default 120 s). */
  pollTimeoutMs?: number;
  /** How DNS-01's check finds a zone's name servers: the system's resolver unless a test says otherwise. */
  dnsLookup?: AuthorityOptions;
  /** How an order ended (problem null: issued), for the owners of automatic certificates. */
  outcome?(name: string, problem: Msg | null): void;
}

const DAY = 86_400_000;
const MAX_TIMER = 2 ** 31 - 1;
const day = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 16);

/** When a certificate is due: `days` before it expires, but never earlier than two thirds into its lifetime. */
export function renewalTime(cert: { notBefore: number; notAfter: number }, days: number): number {
  return cert.notAfter - Math.min(days * DAY, (cert.notAfter - cert.notBefore) / 3);
}

export function directoryOf(rule: AcmeRule): string {
  return rule.ca === 'custom' ? rule.directoryUrl : ACME_DIRECTORIES[rule.ca];
}

interface Run {
  key: string;
  rule: AcmeRule;
  ctx: RuleContext<AcmeConfigure>;
  timer: NodeJS.Timeout | null;
  busy: Promise<Msg> | null;
  /** Whether the check under way orders whatever the expiry. */
  busyForced: boolean;
  failures: number;
  renewAt: number | null;
  /** The time picked in the CA's renewal window, kept while the window stays the same. */
  ari: { start: number; end: number; at: number } | null;
  /** The certificate renewed by the next order when the CA takes `replaces` (ARI). */
  replaces: string | null;
  /** When the last `expiring` announcement went out (once a day). */
  warnedAt: number;
  stopped: boolean;
  unwatch?: () => void;
}

export class AcmeEngine implements Engine<AcmeRule, AcmeConfigure, AcmeFigures> {
  private http = new HttpClients();
  private runs = new Map<string, Run>();
  private http01 = new Http01Listeners();

  constructor(private readonly d: AcmeEngineDeps) {}

  async start(rule: AcmeRule, ctx: RuleContext<AcmeConfigure>): Promise<RuleHandle<AcmeRule, AcmeFigures>> {
    const run: Run = { key: ctx.key, rule, ctx, timer: null, busy: null, busyForced: false, failures: 0, renewAt: null, ari: null, replaces: null, warnedAt: 0, stopped: false };
    if (rule.source === 'pem') this.store(run, rule.cert, rule.privateKey, false);
    else if (rule.source === 'file') await this.startFiles(run);
    // Every source is looked at for its expiry now and then; ACME ones order at once when they have no certificate.
    this.schedule(run, 0);
    this.runs.set(run.key, run);
    return {
      stop: async () => {
        run.stopped = true;
        if (run.timer) clearTimeout(run.timer);
        run.unwatch?.();
        if (this.runs.get(run.key) === run) this.runs.delete(run.key);
        await run.busy?.catch(() => undefined);
      },
      figures: () => ({ renewAt: run.renewAt }),
    };
  }

  /** Stores a certificate under the rule's name; a bad pair is the rule's problem. */
  private store(run: Run, cert: string, key: string, retry: boolean): void {
    try {
      const have = this.d.certificates.get(run.rule.name);
      const facts = this.d.certificates.check(cert, key);
      if (have?.fingerprint === facts.fingerprint && have.key === key) return;
      const now = this.d.certificates.put(run.rule.name, cert, key);
      run.ctx.note({ key: 'acmeStored', vars: { names: now.names.join(', '), date: day(now.notAfter) } });
    } catch (err) {
      if (err instanceof TlsError) throw new RuleProblem(err.msg, retry || err.retry);
      throw err;
    }
  }

  /** The rule's two files as they are now. */
  private async readPair(run: Run): Promise<{ cert: string; key: string }> {
    try {
      const [cert, key] = await Promise.all([readFile(run.rule.certPath, 'utf8'), readFile(run.rule.keyPath, 'utf8')]);
      return { cert, key };
    } catch (err) {
      throw new RuleProblem({ key: 'statusCertUnreadable', vars: { n: 1, detail: (err as Error).message } });
    }
  }

  private async readFiles(run: Run): Promise<void> {
    const { cert, key } = await this.readPair(run);
    this.store(run, cert, key, true);
  }

  /**
   * Looks at the files every 2 s and compares what they hold, not their timestamps: a file rewritten
   * within the clock tick of the last write, or before a stat watcher took its first look, keeps its
   * timestamps and would go unseen.
   */
  private async startFiles(run: Run): Promise<void> {
    const first = await this.readPair(run);
    this.store(run, first.cert, first.key, true);
    let seen = `${first.cert}\0${first.key}`;
    let looking = false;
    const look = async () => {
      const pair = await this.readPair(run).catch((err: unknown) => msgOf(err));
      // An unreadable pair is told apart by its error, so that the same error is reported once.
      const now = 'cert' in pair ? `${pair.cert}\0${pair.key}` : JSON.stringify(pair);
      if (run.stopped || now === seen) return;
      // A pair caught half-written changes again when its writer ends, and is read again then.
      seen = now;
      run.ctx.note({ key: 'acmeFileChanged' });
      if (!('cert' in pair)) return run.ctx.report([pair]);
      try {
        this.store(run, pair.cert, pair.key, true);
        run.ctx.report(null);
      } catch (err) {
        run.ctx.report([msgOf(err)]);
      }
    };
    const timer = setInterval(() => {
      if (looking) return;
      looking = true;
      void look().finally(() => (looking = false));
    }, 2000);
    timer.unref();
    run.unwatch = () => clearInterval(timer);
  }

  private schedule(run: Run, delayMs: number): void {
    if (run.stopped) return;
    if (run.timer) clearTimeout(run.timer);
    const check = run.ctx.settings().checkHours * 3_600_000;
    run.timer = setTimeout(() => void this.check(run, false).catch(() => undefined), Math.max(0, Math.min(delayMs, check, MAX_TIMER)));
    run.timer.unref();
  }

  /**
   * Orders a certificate when due (or `force`); the result as a line. Concurrent calls share one
   * check, except that "order now" during a routine check (which may find nothing due) waits for it
   * and then orders.
   */
  private check(run: Run, force: boolean): Promise<Msg> {
    if (run.busy && (!force || run.busyForced)) return run.busy;
    const after = run.busy ? run.busy.catch(() => undefined) : Promise.resolve();
    const p: Promise<Msg> = after
      .then(() => this.checkNow(run, force))
      .finally(() => {
        if (run.busy !== p) return;
        run.busy = null;
        run.busyForced = false;
      });
    run.busy = p;
    run.busyForced = force;
    return p;
  }

  private async checkNow(run: Run, force: boolean): Promise<Msg> {
    const rule = run.rule;
    const have = this.d.certificates.get(rule.name);
    if (rule.source !== 'acme') {
      if (have) this.warnIfExpiring(run, have);
      this.schedule(run, Infinity);
      return { key: 'acmeRunStored' };
    }
    const covers = !!have && rule.domains.every((n) => have.names.includes(n));
    let renewAt = have ? renewalTime(have, rule.renewBeforeDays) : 0;
    let askAgainAt = Infinity;
    if (have && covers && !force) {
      const suggested = await this.suggested(run, have.cert);
      if (suggested) ({ renewAt, askAgainAt } = suggested);
    }
    if (!force && covers && Date.now() < renewAt) {
      run.renewAt = renewAt;
      this.warnIfExpiring(run, have);
      run.ctx.note({ key: 'acmeValidUntil', vars: { date: day(have.notAfter), renew: day(renewAt) } });
      this.schedule(run, Math.min(renewAt, askAgainAt) - Date.now());
      return { key: 'acmeValidUntil', vars: { date: day(have.notAfter), renew: day(renewAt) } };
    }
    run.ctx.note(have ? { key: 'acmeRenewDue', vars: { date: day(have.notAfter) } } : { key: 'acmeNoCertYet' });
    try {
      const issued = await this.order(run);
      if (run.stopped) return { key: 'acmeOrderFailed', vars: { detail: { key: 'ruleSwitchedOff' } } };
      const now = this.d.certificates.put(rule.name, issued.cert, issued.key);
      run.failures = 0;
      // The window and the id were the old certificate's; the next check asks about the new one.
      run.ari = null;
      run.replaces = null;
      run.warnedAt = 0;
      run.renewAt = renewalTime(now, rule.renewBeforeDays);
      run.ctx.note({ key: 'acmeIssued', vars: { names: now.names.join(', '), date: day(now.notAfter) } });
      run.ctx.report(null);
      this.d.outcome?.(rule.name, null);
      this.notify(run, 'issued', now, '');
      this.schedule(run, run.renewAt - Date.now());
      return { key: 'acmeRunIssued', vars: { date: day(now.notAfter) } };
    } catch (err) {
      const detail = msgOf(err);
      const line: Msg = { key: 'acmeOrderFailed', vars: { detail } };
      run.ctx.note(line);
      const kept = this.d.certificates.get(rule.name);
      if (kept) run.ctx.note({ key: 'acmeKeptOld', vars: { date: day(kept.notAfter) } });
      this.notify(run, 'failed', kept ?? null, renderMsg('en_US', line));
      if (kept) this.warnIfExpiring(run, kept);
      run.failures++;
      const wait = Math.min((this.d.retryBaseMs ?? 300_000) * 2 ** (run.failures - 1), 6 * 3_600_000);
      run.ctx.note({ key: 'acmeRetryIn', vars: { minutes: Math.round(wait / 60_000) } });
      run.ctx.report([line]);
      this.d.outcome?.(rule.name, line);
      this.schedule(run, wait);
      throw new MsgError(line);
    }
  }

  private async order(run: Run) {
    const rule = run.rule;
    const directoryUrl = directoryOf(rule);
    const eabKid = rule.eabKid;
    const accountKeyPem = rule.accountKey || this.d.accounts.keyFor(directoryUrl, eabKid);
    const http = this.http.client({ timeoutMs: 30_000, ...(rule.caRoot ? { ca: rule.caRoot } : {}) });
    const note = (line: Msg) => run.ctx.note(line);
    const { solver, close } = this.solver(run);
    try {
      const issued = await orderCertificate({
        http,
        directoryUrl,
        accountKeyPem,
        ...(rule.email ? { email: rule.email } : {}),
        ...(eabKid ? { eab: { kid: eabKid, hmac: rule.eabHmac } } : {}),
        names: rule.domains,
        keyType: rule.keyType,
        ...(run.replaces ? { replaces: run.replaces } : {}),
        solver,
        note,
        ...(this.d.pollTimeoutMs ? { pollTimeoutMs: this.d.pollTimeoutMs } : {}),
      });
      if (!rule.accountKey) this.d.accounts.setUrl(directoryUrl, eabKid, issued.account);
      return issued;
    } finally {
      await close();
    }
  }

  private solver(run: Run): { solver: Solver; close: () => Promise<void> } {
    const rule = run.rule;
    if (rule.challenge === 'http-01') {
      let joined: ReturnType<Http01Listeners['join']> | null = null;
      return {
        solver: {
          type: 'http-01',
          present: async (name, token, keyAuth) => {
            // A web services rule already listening there answers it; else a listener of our own.
            const onWeb = await this.d.httpChallenges().present(rule.httpPort, token, keyAuth);
            if (onWeb) {
              run.ctx.note({ key: 'acmeHttpWebRule', vars: { name, rules: onWeb.rules.join(', '), port: rule.httpPort } });
              return () => onWeb.remove();
            }
            joined ??= this.http01.join(rule.httpAddress, rule.httpPort, (ep) => run.ctx.claim(ep));
            await joined.listener.open();
            run.ctx.note({ key: 'acmeHttpListen', vars: { address: joined.listener.address } });
            return joined.listener.add(token, keyAuth);
          },
        },
        close: async () => joined?.leave(),
      };
    }
    let noted = false;
    return {
      solver: {
        type: 'dns-01',
        present: async (name, _token, value) => {
          const dns = this.d.dnsProviders();
          const client = dns.taskClient(rule.dnsTask);
          if (!client) throw new MsgError({ key: 'acmeNoDnsTask', vars: { task: rule.dnsTask } });
          if (!dns.providers().find((p) => p.name === client.provider)?.records.includes('TXT')) {
            throw new MsgError({ key: 'acmeDnsNoTxt', vars: { provider: client.provider } });
          }
          const task = dns.tasks().find((t) => t.key === rule.dnsTask);
          const line = challengeLine(name, task?.domains ?? []);
          const record = `_acme-challenge.${name}`;
          await client.set({ domain: line, type: 'TXT', value, ttl: 60 });
          run.ctx.note({ key: 'acmeDnsSet', vars: { record } });
          const remove = async () => {
            try {
              if (await client.remove({ domain: line, type: 'TXT', value })) run.ctx.note({ key: 'acmeDnsRemoved', vars: { record } });
              else if (!noted) {
                noted = true;
                run.ctx.note({ key: 'acmeDnsNoRemove', vars: { provider: client.provider, record } });
              }
            } catch (err) {
              run.ctx.note({ key: 'acmeDnsRemoveFailed', vars: { record, detail: msgOf(err) } });
            }
          };
          try {
            if (rule.dnsCheck) {
              await awaitPropagation({
                rule,
                record,
                value,
                taskServer: task?.server,
                lookup: this.d.dnsLookup,
                note: (l) => run.ctx.note(l),
                stopped: () => run.stopped,
              });
            }
            if (rule.dnsWait > 0) await new Promise((r) => setTimeout(r, rule.dnsWait * 1000));
          } catch (err) {
            // The CA is never asked: the record goes now.
            await remove();
            throw err;
          }
          return remove;
        },
      },
      close: async () => undefined,
    };
  }

  /**
   * The time the CA suggests renewing at (ARI), picked once in its window, and when to ask again;
   * null when it offers none or cannot be asked (the rule's own days then apply).
   */
  private async suggested(run: Run, certPem: string): Promise<{ renewAt: number; askAgainAt: number } | null> {
    const rule = run.rule;
    try {
      const http = this.http.client({ timeoutMs: 30_000, ...(rule.caRoot ? { ca: rule.caRoot } : {}) });
      const url = await renewalInfoUrl(http, directoryOf(rule));
      if (!url) return null;
      const id = ariCertId(certPem);
      const w = await renewalWindow(http, url, id);
      if (!w) return null;
      run.replaces = id;
      if (!run.ari || run.ari.start !== w.start || run.ari.end !== w.end) {
        run.ari = { start: w.start, end: w.end, at: pickInWindow(w) };
        run.ctx.note({ key: 'acmeAriWindow', vars: { start: day(w.start), end: day(w.end), at: day(run.ari.at) } });
      }
      return { renewAt: run.ari.at, askAgainAt: w.askAgainAt };
    } catch (err) {
      run.ctx.note({ key: 'acmeAriFailed', vars: { detail: msgOf(err) } });
      return null;
    }
  }

  /** A certificate near its expiry (and not renewed): a line and the webhook, once a day. */
  private warnIfExpiring(run: Run, cert: { notBefore: number; notAfter: number; names: string[] }): void {
    const left = cert.notAfter - Date.now();
    const threshold = Math.min(run.ctx.settings().warnDays * DAY, (cert.notAfter - cert.notBefore) / 4);
    if (left > threshold || Date.now() - run.warnedAt < DAY) return;
    run.warnedAt = Date.now();
    const days = Math.max(0, Math.floor(left / DAY));
    run.ctx.note({ key: 'acmeExpiring', vars: { date: day(cert.notAfter), days } });
    this.notify(run, 'expiring', cert, '');
  }

  /** The module's webhook for an event it is set to announce; its outcome is a line of the rule's log. */
  private notify(run: Run, event: AcmeEvent, cert: { notAfter: number; names: string[] } | null, error: string): void {
    const s = run.ctx.settings();
    if (!s.webhook.enable || !s.webhookEvents.includes(event)) return;
    const values = {
      name: run.rule.name,
      domains: (cert?.names ?? run.rule.domains).join(','),
      event,
      notAfter: cert ? day(cert.notAfter) : '',
      daysLeft: cert ? Math.max(0, Math.floor((cert.notAfter - Date.now()) / DAY)) : 0,
      error,
    };
    void this.d
      .webhooks()
      .call(s.webhook, values)
      .then((r) => {
        if (r) run.ctx.note({ key: 'acmeWebhookDone', vars: { event, result: r.reason } });
      });
  }

  /** Orders now whatever the expiry ("renew now", run now); resolves with the outcome line or throws it. */
  async renew(key: string): Promise<Msg> {
    const run = this.runs.get(key);
    if (!run) throw new MsgError({ key: 'ruleSwitchedOff' });
    if (run.rule.source !== 'acme') {
      if (run.rule.source === 'file') await this.readFiles(run);
      else this.store(run, run.rule.cert, run.rule.privateKey, false);
      return { key: 'acmeRunStored' };
    }
    return this.check(run, true);
  }

  async close(): Promise<void> {
    for (const run of this.runs.values()) {
      run.stopped = true;
      if (run.timer) clearTimeout(run.timer);
      run.unwatch?.();
    }
    this.runs.clear();
    await this.http.close();
  }
}
