/**
 * One rule's SSH service: the connections on its listener, logins (the storage users' passwords
 * and public keys, in the lock-out shared with the console), the limits (in total, per user, the
 * time to log in, the idle timeout) and the one thing a session may do: the SFTP subsystem. A
 * shell, a command, a forward, an agent or X11 is refused and said in the rule's log.
 */
import type { Socket } from 'node:net';
import ssh2, { type AuthContext, type CipherAlgorithm, type Connection, type SFTPWrapper } from 'ssh2';
import type { Msg, SftpFigures, SftpRule } from '@lucky/contracts';
import type { LoginGuard } from '../../core/loginguard.js';
import type { StoragePrincipal, StoragesService } from '../../core/services/storages.js';
import { plainAddress } from '../../lib/ip.js';
import { SftpSession, type SftpCounters } from './sftp.files.js';

/** Time to log in before the connection is closed (OpenSSH's LoginGraceTime is 120 s). */
const LOGIN_GRACE_MS = 60_000;
/** Failed login attempts per connection before it is closed (OpenSSH's MaxAuthTries). */
const MAX_AUTH_TRIES = 6;
/** A wrong password waits this long before its answer: guessing on one connection is slow. */
const FAIL_DELAY_MS = 500;
/**
 * Ciphers offered. Without ssh2's optional native binding (left unbuilt) ChaCha20-Poly1305 runs its
 * Poly1305 in JavaScript: it is not offered, so OpenSSH clients (which prefer it) pick AES, which
 * Node's OpenSSL runs with the CPU's AES instructions.
 */
const CIPHERS: CipherAlgorithm[] = ['aes128-gcm@openssh.com', 'aes256-gcm@openssh.com', 'aes128-ctr', 'aes192-ctr', 'aes256-ctr'];

/**
 * Ends an SFTP channel as a finished subsystem does: its exit status, then the close. ssh2's SFTP
 * object only closes; the exit status goes through the channel's protocol (not in its types).
 */
function endSubsystem(sftp: SFTPWrapper): void {
  const ch = sftp as unknown as { outgoing?: { id: number; state: string }; _protocol?: { exitStatus(id: number, status: number): void } };
  if (ch.outgoing && ch._protocol && (ch.outgoing.state === 'open' || ch.outgoing.state === 'eof')) ch._protocol.exitStatus(ch.outgoing.id, 0);
  sftp.end();
}

export interface SftpDeps {
  storages: StoragesService;
  loginGuard: LoginGuard;
  hostKeys: Buffer[];
  /** A line in the rule's log. */
  note(m: Msg): void;
  /** Whether access lines are wanted (module settings). */
  accessLog(): boolean;
}

interface Conn {
  client: Connection;
  address: string;
  who: StoragePrincipal | null;
  sessions: Set<SftpSession>;
}

export class SftpServer {
  readonly counters: SftpCounters = { requests: 0, uploads: 0, downloads: 0, bytesIn: 0, bytesOut: 0, denied: 0 };
  private readonly sockets = new Set<Socket>();
  private readonly conns = new Set<Conn>();
  private readonly ssh: ssh2.Server;

  constructor(
    public rule: SftpRule,
    private readonly d: SftpDeps,
  ) {
    this.ssh = new ssh2.Server({ hostKeys: d.hostKeys, ident: 'Lucky', algorithms: { cipher: CIPHERS } }, (client: Connection, info: { ip: string }) => this.onClient(client, plainAddress(info.ip)));
  }

  figures(): SftpFigures {
    let sessions = 0;
    for (const c of this.conns) if (c.who) sessions++;
    return { ...this.counters, connections: this.sockets.size, sessions };
  }

  /** A new TCP connection of the listener: counted against the rule's limit, then handed to SSH. */
  accept(sock: Socket): void {
    if (this.sockets.size >= this.rule.maxConnections) {
      this.counters.denied++;
      this.d.note({ key: 'sftpTooManyConnections', vars: { client: plainAddress(sock.remoteAddress), max: this.rule.maxConnections } });
      sock.destroy();
      return;
    }
    this.sockets.add(sock);
    sock.once('close', () => this.sockets.delete(sock));
    sock.on('error', () => undefined);
    sock.setNoDelay(true);
    this.ssh.injectSocket(sock);
  }

  closeAll(): void {
    for (const c of this.conns) c.client.end();
    for (const s of this.sockets) s.destroy();
  }

  private sessionsOf(account: string): number {
    let n = 0;
    for (const c of this.conns) if (c.who?.account === account) n++;
    return n;
  }

  private methods(): Array<'password' | 'publickey'> {
    const out: Array<'password' | 'publickey'> = [];
    if (this.rule.passwordLogin) out.push('password');
    if (this.rule.keyLogin) out.push('publickey');
    return out;
  }

  private userName(c: Conn): string {
    return c.who?.account ?? '-';
  }

  private onClient(client: Connection, address: string): void {
    const c: Conn = { client, address, who: null, sessions: new Set() };
    this.conns.add(c);
    let failures = 0;
    let idle: NodeJS.Timeout | undefined;
    const grace = setTimeout(() => client.end(), LOGIN_GRACE_MS);
    grace.unref();
    client.on('error', () => undefined);
    client.on('close', () => {
      clearTimeout(grace);
      clearTimeout(idle);
      this.conns.delete(c);
      for (const s of c.sessions) void s.closeAll();
    });

    const refuse = (ctx: AuthContext, counted: boolean) => {
      if (counted) {
        this.counters.denied++;
        this.d.note({ key: 'sftpLoginFailed', vars: { client: address, account: ctx.username.slice(0, 64), method: ctx.method } });
        if (++failures >= MAX_AUTH_TRIES) {
          ctx.reject();
          client.end();
          return;
        }
      }
      ctx.reject(this.methods());
    };
    const admit = (ctx: AuthContext, who: StoragePrincipal) => {
      if (this.sessionsOf(who.account) >= this.rule.maxPerUser) {
        this.counters.denied++;
        this.d.note({ key: 'sftpTooManyForUser', vars: { client: address, user: who.account, max: this.rule.maxPerUser } });
        ctx.reject();
        client.end();
        return;
      }
      c.who = who;
      this.d.note({ key: 'sftpLoggedIn', vars: { client: address, user: who.account, method: ctx.method } });
      ctx.accept();
    };

    client.on('authentication', (ctx) => {
      void this.authenticate(ctx, address).then(
        (who) => {
          if (who === 'ask') return;
          if (who === null) return refuse(ctx, false);
          if (who === 'wrong') return void setTimeout(() => refuse(ctx, true), FAIL_DELAY_MS).unref();
          admit(ctx, who);
        },
        () => refuse(ctx, false),
      );
    });

    const touch = () => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        this.d.note({ key: 'sftpIdleClosed', vars: { client: address, user: this.userName(c) } });
        client.end();
      }, this.rule.idleTimeout * 1000);
      idle.unref();
    };

    const refused = (what: string) => {
      this.counters.denied++;
      this.d.note({ key: 'sftpRefused', vars: { client: address, user: this.userName(c), what } });
    };

    client.on('ready', () => {
      clearTimeout(grace);
      touch();
      client.on('session', (accept) => {
        const session = accept();
        session.on('sftp', (accept) => {
          const who = c.who;
          if (!who) return;
          const sftp = accept();
          const s = new SftpSession(sftp, {
            storages: this.d.storages,
            rule: () => this.rule,
            who,
            counters: this.counters,
            touch,
            access: (op, path, ok, bytes) => {
              if (!this.d.accessLog()) return;
              this.d.note({ key: 'sftpAccess', vars: { client: address, user: who.account, op, path, result: ok ? { key: 'ftpAccessOk' } : { key: 'ftpAccessFailed', vars: { code: 'aborted' } }, bytes } });
            },
          });
          c.sessions.add(s);
          // The client's EOF ends the subsystem: exit status 0 (scp checks it, as OpenSSH's
          // sftp-server exiting would give), then the channel closes and the client exits.
          sftp.on('end', () => endSubsystem(sftp));
          sftp.on('close', () => c.sessions.delete(s));
        });
        // Anything but SFTP on a session: refused, said once per request.
        for (const what of ['shell', 'exec', 'subsystem', 'x11', 'auth-agent'] as const) {
          session.on(what as 'shell', (_accept: unknown, reject?: () => void) => {
            refused(what);
            reject?.();
          });
        }
      });
      client.on('tcpip', (_accept, reject, info) => {
        refused(`direct-tcpip ${info.destIP}:${info.destPort}`);
        reject();
      });
      client.on('openssh.streamlocal', (_accept, reject) => {
        refused('streamlocal');
        reject();
      });
      client.on('request', (_accept, reject, name) => {
        // OpenSSH clients send housekeeping requests (no-more-sessions, hostkeys) too: only forwards are worth a line.
        if (/forward/.test(name)) refused(name);
        reject?.();
      });
    });
  }

  /**
   * Who the client is for this attempt: a principal, `wrong` (a guess that counts), null (a method
   * not offered or a key that is no one's: nothing counted), or `ask` when the client only asked
   * whether a key would do and has been answered.
   */
  private async authenticate(ctx: AuthContext, address: string): Promise<StoragePrincipal | 'wrong' | 'ask' | null> {
    const account = ctx.username.slice(0, 64);
    if (ctx.method === 'password' && this.rule.passwordLogin) {
      const who = await this.d.storages.login({ account, password: ctx.password, ip: address, service: 'sftpserver' });
      return who ?? 'wrong';
    }
    if (ctx.method === 'publickey' && this.rule.keyLogin) {
      const who = this.d.storages.keyOwner({ account, blob: ctx.key.data, ip: address, service: 'sftpserver' });
      if (!who) return null;
      // The client asks whether this key would do before it signs with it.
      if (!ctx.signature || !ctx.blob) {
        ctx.accept();
        return 'ask';
      }
      const key = ssh2.utils.parseKey(ctx.key.data);
      const parsed = Array.isArray(key) ? key[0] : key;
      if (!parsed || parsed instanceof Error) return 'wrong';
      if (parsed.verify(ctx.blob, ctx.signature, ctx.hashAlgo) !== true) {
        this.d.loginGuard.fail(address);
        return 'wrong';
      }
      this.d.loginGuard.succeed(address);
      return who;
    }
    return null;
  }
}
