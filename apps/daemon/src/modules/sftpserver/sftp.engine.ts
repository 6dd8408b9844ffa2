/**
 * The SFTP engine: one listener per rule whose connections go to that rule's SftpServer. A port in
 * use is the rule's error status (RuleProblem), never a crash; address and port changes restart
 * the rule, everything else applies to the next login or request in place.
 */
import { createServer, type Server } from 'node:net';
import type { SftpConfigure, SftpFigures, SftpRule } from '@lucky/contracts';
import { listenTcp, RuleProblem, type Engine, type RuleContext, type RuleHandle } from '../../core/engine.js';
import type { LoginGuard } from '../../core/loginguard.js';
import type { StoragesService } from '../../core/services/storages.js';
import { fmtAddr } from '../../lib/ip.js';
import { HostKeyError, type HostKeys } from './sftp.hostkeys.js';
import { SftpServer } from './sftp.server.js';

export interface SftpEngineDeps {
  storages: StoragesService;
  loginGuard: LoginGuard;
  hostKeys(): Promise<HostKeys>;
}

export class SftpEngine implements Engine<SftpRule, SftpConfigure, SftpFigures> {
  private readonly served = new Map<string, string[]>();

  constructor(private readonly d: SftpEngineDeps) {}

  private publishUsage(): void {
    this.d.storages.setUsage('sftpserver', [...new Set([...this.served.values()].flat())]);
  }

  async start(rule: SftpRule, ctx: RuleContext<SftpConfigure>): Promise<RuleHandle<SftpRule, SftpFigures>> {
    const keys = await this.d.hostKeys().catch((err: unknown) => {
      if (err instanceof HostKeyError) throw new RuleProblem({ key: 'sftpHostKeyUnreadable', vars: { file: err.file, detail: err.detail } });
      throw err;
    });
    const sftp = new SftpServer(rule, {
      storages: this.d.storages,
      loginGuard: this.d.loginGuard,
      hostKeys: keys.privateKeys,
      note: (m) => ctx.note(m),
      accessLog: () => ctx.settings().accessLog,
    });
    const server: Server = createServer((s) => sftp.accept(s));
    const host = await listenTcp(server, rule.address, rule.port);
    server.on('error', () => undefined);
    ctx.note({ key: 'sftpListening', vars: { address: fmtAddr(host, rule.port) } });
    const storagesOf = (r: SftpRule) => r.mounts.map((m) => m.storage);
    this.served.set(ctx.key, storagesOf(rule));
    this.publishUsage();
    return {
      stop: async () => {
        this.served.delete(ctx.key);
        this.publishUsage();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          sftp.closeAll();
        });
      },
      update: (next) => {
        if (next.address !== sftp.rule.address || next.port !== sftp.rule.port) return false;
        sftp.rule = next;
        this.served.set(ctx.key, storagesOf(next));
        this.publishUsage();
        return true;
      },
      figures: () => sftp.figures(),
    };
  }
}
