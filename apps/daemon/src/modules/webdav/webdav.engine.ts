/**
 * The WebDAV engine: one HTTP or HTTPS listener per rule, serving the rule's mounts through the
 * storages service. Certificates are read and checked by the certificates service; a port in use or
 * a bad certificate is the rule's error status (RuleProblem), never a crash.
 */
import { createServer as createHttp, type Server } from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import type { WebdavConfigure, WebdavFigures, WebdavRule } from '@lucky/contracts';
import { listenProblem, RuleProblem, type Engine, type RuleContext, type RuleHandle } from '../../core/engine.js';
import { awaitStoreCerts, followStoreCerts } from '../../core/rulecerts.js';
import type { CertificatesService } from '../../core/services/certificates.js';
import type { ServerTls } from '../../lib/tls/contexts.js';
import type { StoragesService } from '../../core/services/storages.js';
import { TlsError } from '../../lib/tls/pem.js';
import { LockTable } from './webdav.locks.js';
import { DeadProps } from './webdav.props.js';
import { DavServer } from './webdav.server.js';

export interface WebdavEngineDeps {
  storages: StoragesService;
  certificates: CertificatesService;
  dataDir: string;
  /** env.nativeRelay: large file bodies by sendfile on plain HTTP connections. */
  nativeFiles?: boolean;
}

export const listenHostOf = (rule: Pick<WebdavRule, 'address'>) => rule.address || '0.0.0.0';
const fmt = (host: string, port: number) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

export class WebdavEngine implements Engine<WebdavRule, WebdavConfigure, WebdavFigures> {
  /** One store for every rule: a storage served by two rules shows the same dead properties. */
  private readonly props: DeadProps;
  private readonly served = new Map<string, string[]>();
  private open = 0;

  constructor(private readonly d: WebdavEngineDeps) {
    this.props = new DeadProps(join(d.dataDir, 'webdav', 'props'));
  }

  private publishUsage(): void {
    this.d.storages.setUsage('webdav', [...new Set([...this.served.values()].flat())]);
  }

  connections(): number {
    return this.open;
  }

  async start(rule: WebdavRule, ctx: RuleContext<WebdavConfigure>): Promise<RuleHandle<WebdavRule, WebdavFigures>> {
    const locks = new LockTable();
    // The access lines asked for, beside the rule's own lines (start, stop, failed logins).
    let keep = -1;
    const access = (lines: number) => {
      if (lines !== keep) ctx.logLines(lines + 64);
      keep = lines;
    };
    access(ctx.settings().accessLogLines);
    const dav = new DavServer(rule, {
      storages: this.d.storages,
      props: this.props,
      locks,
      nativeFiles: this.d.nativeFiles ?? false,
      note: (m) => ctx.note(m),
      access: (e) => {
        const lines = ctx.settings().accessLogLines;
        access(lines);
        if (lines > 0) ctx.note({ key: 'webdavAccess', vars: { user: e.user, method: e.method, path: e.path, status: e.status, bytes: e.bytes } });
      },
    });
    let server: Server;
    let unsubscribe = () => {};
    if (rule.tls) {
      let tls: ServerTls;
      awaitStoreCerts(this.d.certificates, rule.certs);
      try {
        tls = await this.d.certificates.serverTls(rule.certs, '1.2');
      } catch (err) {
        if (err instanceof TlsError) throw new RuleProblem(err.msg, err.retry);
        throw err;
      }
      const https = createHttps({ ...tls.options, SNICallback: (name, cb) => cb(null, tls.context(name)) }, dav.handle);
      server = https as unknown as Server;
      // A certificate of the store the rule names (renewed by ACME) is swapped in; connections carry on.
      unsubscribe = followStoreCerts(this.d.certificates, rule.certs, '1.2', ctx, (next) => {
        tls = next;
        https.setSecureContext(next.options);
      });
    } else server = createHttp(dav.handle);
    server.on('checkContinue', dav.handleContinue);
    // Slow clients must not hold sockets forever; uploads of big files still have all the time they need.
    server.requestTimeout = 0;
    server.headersTimeout = 60_000;
    server.keepAliveTimeout = 30_000;
    const sockets = new Set<Socket>();
    let connections = 0;
    server.on('connection', (s: Socket) => {
      sockets.add(s);
      connections++;
      this.open++;
      s.on('close', () => {
        sockets.delete(s);
        connections--;
        this.open--;
      });
    });
    const host = listenHostOf(rule);
    await new Promise<void>((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException) => {
        unsubscribe();
        reject(new RuleProblem(listenProblem(fmt(host, rule.port), rule.port, err.code, err.message)));
      };
      server.once('error', onError);
      server.listen({ host, port: rule.port }, () => {
        server.off('error', onError);
        resolve();
      });
    });
    server.on('error', () => undefined);
    ctx.note({ key: 'webdavListening', vars: { address: fmt(host, rule.port), scheme: rule.tls ? 'https' : 'http' } });
    this.served.set(ctx.key, dav.storagesServed());
    this.publishUsage();
    let current = rule;
    return {
      stop: async () => {
        unsubscribe();
        this.served.delete(ctx.key);
        this.publishUsage();
        locks.clear();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          for (const s of sockets) s.destroy();
        });
      },
      update: (next) => {
        // Another listener (address, port, TLS) needs a new socket: restart; the rest applies in place.
        if (next.address !== current.address || next.port !== current.port || next.tls !== current.tls || JSON.stringify(next.certs) !== JSON.stringify(current.certs)) return false;
        current = next;
        dav.update(next);
        this.served.set(ctx.key, dav.storagesServed());
        this.publishUsage();
        return true;
      },
      figures: () => ({ connections, ...dav.counters }),
    };
  }
}
