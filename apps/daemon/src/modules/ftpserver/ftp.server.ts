/**
 * One rule's FTP service: the control sessions on its listener, their limits (in total and per
 * user), the idle timeout, the switch to TLS (AUTH TLS, or implicit from the first byte), and the
 * rule's counters. The commands, by name, are in ftp.commands.ts; data connections in ftp.data.ts.
 */
import type { Socket } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { createSecureContext, TLSSocket, type SecureContext } from 'node:tls';
import type { Duplex } from 'node:stream';
import type { FtpFigures, FtpRule, Msg } from '@lucky/contracts';
import type { NativeFlow } from '../../core/relay.js';
import type { StoragePrincipal, StoragesService } from '../../core/services/storages.js';
import type { ServerTls } from '../../lib/tls/contexts.js';
import { COMMANDS, PUBLIC_COMMANDS, TRANSFER_SAFE } from './ftp.commands.js';
import { PassivePorts, plainAddress, type DataChannel } from './ftp.data.js';
import type { Target } from './ftp.paths.js';

/** A command line longer than this is refused and the session closed (no client needs more). */
const MAX_LINE = 8192;

export interface FtpCounters {
  commands: number;
  uploads: number;
  downloads: number;
  bytesIn: number;
  bytesOut: number;
  denied: number;
}

export interface FtpDeps {
  storages: StoragesService;
  /** A line in the rule's log. */
  note(m: Msg): void;
  /** Whether access lines are wanted (module settings). */
  accessLog(): boolean;
  /** The IPv4 address PASV announces to this client; null = the control connection's own. */
  announce(client: string): Promise<string | null>;
  /** Files on plain data connections may go through the native relay (env LUCKY_NATIVE_RELAY). */
  nativeData: boolean;
}

export class FtpServer {
  readonly counters: FtpCounters = { commands: 0, uploads: 0, downloads: 0, bytesIn: 0, bytesOut: 0, denied: 0 };
  readonly sessions = new Set<FtpSession>();
  /** Transfers on the relay thread now: their bytes so far count in the figures. */
  readonly live = new Set<NativeFlow>();
  readonly ports: PassivePorts;
  defaultContext: SecureContext | null;
  rule: FtpRule;

  constructor(
    rule: FtpRule,
    public tls: ServerTls | null,
    readonly deps: FtpDeps,
  ) {
    this.rule = rule;
    this.ports = new PassivePorts(rule.pasvMin, rule.pasvMax);
    this.defaultContext = tls ? createSecureContext(tls.options) : null;
  }

  /** New certificates (a renewed one of the store): the next AUTH TLS and data connections use them; open ones carry on. */
  setTls(tls: ServerTls): void {
    this.tls = tls;
    this.defaultContext = createSecureContext(tls.options);
  }

  update(rule: FtpRule): void {
    this.rule = rule;
  }

  /** The storages this rule serves, for the storages service's "used by". */
  storagesServed(): string[] {
    return [...new Set(this.rule.mounts.map((m) => m.storage))];
  }

  figures(): FtpFigures {
    let bytesIn = this.counters.bytesIn;
    let bytesOut = this.counters.bytesOut;
    for (const f of this.live) {
      const c = f.counters();
      bytesIn += c.toTarget;
      bytesOut += c.toClient;
    }
    return { connections: this.sessions.size, sessions: this.loggedIn(), ...this.counters, bytesIn, bytesOut };
  }

  loggedIn(): number {
    let n = 0;
    for (const s of this.sessions) if (s.who) n++;
    return n;
  }

  /** Sessions logged in as this account (the anonymous user counts as one account). */
  sessionsOf(account: string): number {
    let n = 0;
    for (const s of this.sessions) if (s.who && s.who.account === account) n++;
    return n;
  }

  contextFor(name: string | undefined): SecureContext {
    return (name ? this.tls?.context(name.toLowerCase()) : undefined) ?? this.defaultContext!;
  }

  /** A new control connection; `secure` when it is implicit FTPS (already TLS). */
  accept(sock: Socket, secure: boolean): void {
    sock.on('error', () => undefined);
    if (this.sessions.size >= this.rule.maxConnections) {
      this.counters.denied++;
      this.deps.note({ key: 'ftpTooManyConnections', vars: { client: plainAddress(sock.remoteAddress), max: this.rule.maxConnections } });
      sock.end('421 Too many connections, try again later.\r\n');
      setTimeout(() => sock.destroy(), 2000).unref();
      return;
    }
    const s = new FtpSession(this, sock, secure);
    this.sessions.add(s);
    s.start();
  }

  closeAll(): void {
    for (const s of this.sessions) s.destroy();
  }
}

export interface Transfer {
  abort(): void;
}

export class FtpSession {
  /** The peer's address (IPv4 without the ::ffff: prefix). */
  readonly client: string;
  secure: boolean;
  /** The account given by USER, waiting for PASS. */
  pendingUser: string | null = null;
  who: StoragePrincipal | null = null;
  cwd = '/';
  /** PROT P: data connections in TLS. Implicit FTPS starts with it. */
  protectData: boolean;
  pbsz = false;
  rest = 0;
  renameFrom: Target | null = null;
  data: DataChannel | null = null;
  /** EPSV ALL: PASV, PORT and EPRT are refused from then on (RFC 2428). */
  epsvAll = false;
  transfer: Transfer | null = null;
  /** ABOR came during a transfer: 226 follows the transfer's 426. */
  abortPending = false;
  private buf = '';
  private chain: Promise<void> = Promise.resolve();
  private idle: NodeJS.Timeout | undefined;
  private closed = false;
  private reader = (chunk: Buffer) => this.onData(chunk);

  constructor(
    readonly server: FtpServer,
    public sock: Socket,
    secure: boolean,
  ) {
    this.client = plainAddress(sock.remoteAddress);
    this.secure = secure;
    this.protectData = secure;
  }

  get rule(): FtpRule {
    return this.server.rule;
  }

  get userName(): string {
    if (!this.who) return '-';
    return this.who.kind === 'anonymous' ? '(anonymous)' : this.who.account;
  }

  start(): void {
    this.listen(this.sock);
    this.sock.on('close', () => this.destroy());
    this.reply(220, 'Lucky FTP server ready.');
    this.touch();
  }

  private decoder = new StringDecoder('utf8');

  private listen(sock: Socket): void {
    this.decoder = new StringDecoder('utf8');
    sock.on('data', this.reader);
  }

  /** Every line resets the idle timer; a running transfer holds it off. */
  touch(): void {
    clearTimeout(this.idle);
    if (this.closed) return;
    this.idle = setTimeout(() => {
      if (this.transfer) return this.touch();
      this.server.deps.note({ key: 'ftpIdleClosed', vars: { client: this.client, user: this.userName } });
      this.reply(421, 'Timeout, closing control connection.');
      this.sock.end();
      setTimeout(() => this.destroy(), 1000).unref();
    }, this.rule.idleTimeout * 1000);
    this.idle.unref();
  }

  private onData(chunk: Buffer | string): void {
    this.buf += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    for (;;) {
      const nl = this.buf.indexOf('\n');
      if (nl === -1) break;
      const raw = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      this.onLine(raw.replace(/\r$/, ''));
      // AUTH TLS: what follows belongs to the TLS layer, not to this reader.
      if (this.closed || this.upgrading) return;
    }
    if (this.buf.length > MAX_LINE) {
      this.reply(500, 'Command line too long.');
      this.destroy();
    }
  }

  private upgrading = false;

  private onLine(raw: string): void {
    this.touch();
    // Telnet IP and Synch sent before ABOR by some clients: not part of the command.
    const line = raw.replace(/\xff[\xf0-\xff]?/g, '').replace(/^[\x00-\x1f]+/, '');
    const sp = line.indexOf(' ');
    const verb = (sp === -1 ? line : line.slice(0, sp)).toUpperCase();
    const arg = sp === -1 ? '' : line.slice(sp + 1);
    if (verb === '') return;
    this.server.counters.commands++;
    // During a transfer only what concerns it is answered at once; the rest waits its turn.
    if (this.transfer && TRANSFER_SAFE.has(verb)) {
      void this.run(verb, arg);
      return;
    }
    if (verb === 'AUTH') this.upgrading = true;
    this.chain = this.chain.then(() => this.run(verb, arg));
  }

  private async run(verb: string, arg: string): Promise<void> {
    if (this.closed) return;
    const handler = COMMANDS[verb];
    if (!handler) return this.reply(502, `${verb.slice(0, 16)} not implemented.`);
    if (!this.who && !PUBLIC_COMMANDS.has(verb)) return this.reply(530, 'Please login with USER and PASS.');
    const control = this.sock;
    try {
      await handler(this, arg);
    } catch {
      // A command must never take the session (or the daemon) down: an unexpected failure is a local error.
      this.reply(451, 'Requested action aborted: local error in processing.');
    } finally {
      if (verb === 'AUTH') {
        this.upgrading = false;
        // Refused: commands sent behind it in the same packet are still waiting in the buffer.
        if (this.sock === control) this.onData('');
      }
    }
  }

  reply(code: number, text: string | string[]): void {
    if (this.closed || this.sock.destroyed) return;
    const lines = (Array.isArray(text) ? text : [text]).map((l) => l.replace(/[\r\n]/g, ' '));
    let out = '';
    lines.forEach((l, i) => {
      if (i === lines.length - 1) out += `${code} ${l}\r\n`;
      else out += i === 0 ? `${code}-${l}\r\n` : ` ${l}\r\n`;
    });
    this.sock.write(out);
  }

  /** A reply of several lines whose last one is `${code} ${last}` (FEAT, MLST, STAT, HELP). */
  replyLines(code: number, first: string, body: string[], last: string): void {
    if (this.closed || this.sock.destroyed) return;
    this.sock.write(`${code}-${first}\r\n${body.map((l) => ` ${l.replace(/[\r\n]/g, ' ')}\r\n`).join('')}${code} ${last}\r\n`);
  }

  /** AUTH TLS: after the 234 reply the control connection speaks TLS. */
  upgrade(): Promise<void> {
    const raw = this.sock;
    raw.off('data', this.reader);
    return new Promise<void>((resolve) => {
      raw.write('234 AUTH TLS successful.\r\n', () => {
        const server = this.server;
        const t = new TLSSocket(raw, {
          isServer: true,
          secureContext: server.contextFor(undefined),
          SNICallback: (name, cb) => cb(null, server.contextFor(name)),
        });
        t.on('error', () => this.destroy());
        t.once('secure', () => {
          this.secure = true;
          this.buf = '';
          resolve();
        });
        t.on('close', () => this.destroy());
        this.sock = t;
        this.listen(t);
        // A client that never finishes its handshake is dropped by the idle timer.
      });
    });
  }

  /** Wraps a data connection in TLS with the control connection's certificate. */
  wrapData = (s: Socket): Promise<Duplex> =>
    new Promise((resolve, reject) => {
      const name = (this.sock as TLSSocket).servername;
      const t = new TLSSocket(s, { isServer: true, secureContext: this.server.contextFor(typeof name === 'string' ? name : undefined) });
      t.once('secure', () => resolve(t));
      t.once('error', reject);
      t.once('close', () => reject(new Error('closed during the TLS handshake')));
    });

  /** The REST offset for the next transfer, used once. */
  takeRest(): number {
    const r = this.rest;
    this.rest = 0;
    return r;
  }

  /** The data channel set up by PASV/EPSV/PORT/EPRT, used once. */
  takeData(): DataChannel | null {
    const d = this.data;
    this.data = null;
    return d;
  }

  /** One line in the rule's log for a command on a file (never the password). */
  access(command: string, path: string, code: number, bytes = 0): void {
    if (!this.server.deps.accessLog()) return;
    const result: Msg = code < 400 ? { key: 'ftpAccessOk' } : { key: 'ftpAccessFailed', vars: { code } };
    this.server.deps.note({ key: 'ftpAccess', vars: { client: this.client, user: this.userName, command, path: path.slice(0, 512), result, bytes } });
  }

  quit(): void {
    this.reply(221, 'Goodbye.');
    this.sock.end();
    setTimeout(() => this.destroy(), 2000).unref();
  }

  destroy(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.idle);
    this.transfer?.abort();
    this.data?.close();
    this.sock.destroy();
    this.server.sessions.delete(this);
  }
}
