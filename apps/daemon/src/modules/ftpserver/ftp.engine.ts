/**
 * The FTP engine: one control listener per rule (plain with AUTH TLS, or implicit FTPS), serving
 * the rule's mounts through the storages service. Certificates are read and checked by the
 * certificates service; a port in use or a bad certificate is the rule's error status
 * (RuleProblem), never a crash. Passive ports are opened per transfer inside the rule's range,
 * which the port registry holds for the rule.
 */
import { createServer as createNet, type Server, type Socket } from 'node:net';
import { createServer as createTls, Server as TlsServer } from 'node:tls';
import type { FtpConfigure, FtpFigures, FtpRule, Msg } from '@lucky/contracts';
import { isLocalAddress } from '../../core/cidr.js';
import { listenTcp, RuleProblem, type Engine, type RuleContext, type RuleHandle } from '../../core/engine.js';
import { awaitStoreCerts, followStoreCerts } from '../../core/rulecerts.js';
import type { CertificatesService } from '../../core/services/certificates.js';
import type { DnsProvidersService } from '../../core/services/dnsProviders.js';
import type { StoragesService } from '../../core/services/storages.js';
import { fmtAddr } from '../../lib/ip.js';
import type { ServerTls } from '../../lib/tls/contexts.js';
import { TlsError } from '../../lib/tls/pem.js';
import { FtpServer } from './ftp.server.js';

export interface FtpEngineDeps {
  storages: StoragesService;
  certificates: CertificatesService;
  dnsProviders: DnsProvidersService;
  /** Files on plain data connections through the native relay when the addon is there. */
  nativeRelay: boolean;
}

/** Changing one of these needs new sockets: the rule restarts instead of updating in place. */
const LISTENER_FIELDS = ['address', 'port', 'pasvMin', 'pasvMax', 'tls', 'certs'] as const;

export class FtpEngine implements Engine<FtpRule, FtpConfigure, FtpFigures> {
  private readonly served = new Map<string, string[]>();
  private readonly servers = new Set<FtpServer>();

  constructor(private readonly d: FtpEngineDeps) {}

  private publishUsage(): void {
    this.d.storages.setUsage('ftpserver', [...new Set([...this.served.values()].flat())]);
  }

  connections(): number {
    let n = 0;
    for (const s of this.servers) n += s.sessions.size;
    return n;
  }

  /**
   * What PASV announces to a client: clients of the operator's own network get the address they
   * reached; others the fixed address, or the DDNS task's current IPv4 address.
   */
  private announcer(ftp: FtpServer, ctx: RuleContext<FtpConfigure>): (client: string) => Promise<string | null> {
    let reported = false;
    const report = (parts: Msg[] | null) => {
      if (!parts && !reported) return;
      reported = parts !== null;
      ctx.report(parts);
    };
    return async (client) => {
      const rule = ftp.rule;
      if (rule.pasvMode === 'auto' || isLocalAddress(client)) return null;
      if (rule.pasvMode === 'fixed') return rule.pasvAddress;
      const addresses = await this.d.dnsProviders.addresses(rule.pasvDdnsTask).catch(() => null);
      if (addresses?.ipv4) {
        report(null);
        return addresses.ipv4;
      }
      const task = this.d.dnsProviders.tasks().find((t) => t.key === rule.pasvDdnsTask);
      report([{ key: 'ftpDdnsNoAddress', vars: { name: task?.name ?? rule.pasvDdnsTask } }]);
      return null;
    };
  }

  async start(rule: FtpRule, ctx: RuleContext<FtpConfigure>): Promise<RuleHandle<FtpRule, FtpFigures>> {
    let tls: ServerTls | null = null;
    if (rule.tls !== 'off') {
      awaitStoreCerts(this.d.certificates, rule.certs);
      try {
        tls = await this.d.certificates.serverTls(rule.certs, '1.2');
      } catch (err) {
        if (err instanceof TlsError) throw new RuleProblem(err.msg, err.retry);
        throw err;
      }
    }
    let announce: (client: string) => Promise<string | null> = async () => null;
    const ftp = new FtpServer(rule, tls, {
      storages: this.d.storages,
      note: (m) => ctx.note(m),
      accessLog: () => ctx.settings().accessLog,
      announce: (client) => announce(client),
      nativeData: this.d.nativeRelay,
    });
    announce = this.announcer(ftp, ctx);
    const server: Server =
      rule.tls === 'implicit' && tls
        ? createTls({ ...tls.options, SNICallback: (name, cb) => cb(null, ftp.contextFor(name)) }, (s) => ftp.accept(s, true))
        : createNet((s: Socket) => ftp.accept(s, false));
    // A client that fails its implicit TLS handshake is simply dropped.
    server.on('tlsClientError', (_e: unknown, s: Socket) => s.destroy());
    const host = await listenTcp(server, rule.address, rule.port);
    server.on('error', () => undefined);
    // A certificate of the store the rule names (renewed by ACME) is swapped in; connections carry on.
    const unsubscribe =
      rule.tls === 'off'
        ? () => {}
        : followStoreCerts(this.d.certificates, rule.certs, '1.2', ctx, (next) => {
            ftp.setTls(next);
            if (server instanceof TlsServer) server.setSecureContext(next.options);
          });
    this.servers.add(ftp);
    ctx.note({ key: 'ftpListening', vars: { address: fmtAddr(host, rule.port), scheme: rule.tls === 'implicit' ? 'ftps' : rule.tls === 'explicit' ? 'ftp + AUTH TLS' : 'ftp', pasv: `${rule.pasvMin}-${rule.pasvMax}` } });
    this.served.set(ctx.key, ftp.storagesServed());
    this.publishUsage();
    let current = rule;
    return {
      stop: async () => {
        unsubscribe();
        this.served.delete(ctx.key);
        this.servers.delete(ftp);
        this.publishUsage();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          ftp.closeAll();
        });
      },
      update: (next) => {
        if (LISTENER_FIELDS.some((f) => JSON.stringify(next[f]) !== JSON.stringify(current[f]))) return false;
        current = next;
        ftp.update(next);
        this.served.set(ctx.key, ftp.storagesServed());
        this.publishUsage();
        return true;
      },
      figures: () => ftp.figures(),
    };
  }
}
