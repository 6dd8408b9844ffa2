/**
 * Asking a STUN server for our public address: over a UDP socket that also carries other traffic
 * (the rule's own port, so that the answer names the mapping the rule's users will reach), and over
 * an already connected TCP socket (RFC 8489 framing on a stream).
 */
import { lookup } from 'node:dns/promises';
import type { Socket as TcpSocket } from 'node:net';
import { isIPv4, isIPv6, parseHostPort, STUN_DEFAULT_PORT } from '@lucky/contracts';
import { MsgError } from '../../lib/msgerror.js';
import { bindingRequest, decodeStun, isStunPacket, mappedOf, STUN_HEADER_LENGTH, stunFrameLength, StunParseError, type StunAddress, type StunMessage } from './stun.message.js';

export interface StunServer {
  address: string;
  port: number;
  /** host:port as the user wrote it, for messages. */
  label: string;
}

export interface BindingResult {
  /** Our address as the server saw it. */
  mapped: StunAddress;
  /** The server's label. */
  server: string;
  /** RESPONSE-ORIGIN, or RFC 3489's SOURCE-ADDRESS. */
  responseOrigin?: StunAddress;
  /** OTHER-ADDRESS, or RFC 3489's CHANGED-ADDRESS: where an RFC 5780 server answers from when asked to change. */
  otherAddress?: StunAddress;
  /** Where the answer really came from (it differs from the server's address after a CHANGE-REQUEST). */
  from: StunAddress;
}

export interface BindingOptions {
  /** Total time for the transaction, retransmissions included. */
  timeoutMs?: number;
  changeIp?: boolean;
  changePort?: boolean;
  signal?: AbortSignal;
}

export interface UdpStunClientOptions {
  /** First retransmission timeout, doubled after each send (RFC 8489 6.2.1: 500 ms). */
  rtoMs?: number;
  /** Sends at most (RFC 8489's Rc: 7). */
  maxTransmits?: number;
}

export const STUN_DEFAULT_TIMEOUT_MS = 5000;
// Servers answer every retransmission: answers to a transaction already settled are still ours
// for this long, so they are not forwarded to the rule's target as if they were user traffic.
const LATE_ANSWER_MS = 30_000;
const LATE_ANSWER_MAX = 256;

/** `host[:port]` to an IPv4 address; the rule's socket is IPv4. */
export async function resolveStunServer(s: string): Promise<{ host: string; port: number; address: string; label: string }> {
  const hp = parseHostPort(s, STUN_DEFAULT_PORT);
  if (!hp) throw new MsgError({ key: 'stunResolveFailed', vars: { host: s, detail: { key: 'stunInvalidServer' } } });
  const label = `${hp.host}:${hp.port}`;
  if (isIPv4(hp.host)) return { ...hp, address: hp.host, label };
  if (isIPv6(hp.host)) throw new MsgError({ key: 'stunNoIpv4', vars: { host: hp.host } });
  try {
    const r = await lookup(hp.host, { family: 4 });
    return { ...hp, address: r.address, label };
  } catch (err) {
    // A name with only AAAA records fails the IPv4 lookup like a name that does not exist; say which.
    const v6 = await lookup(hp.host, { family: 6 }).then(
      () => true,
      () => false,
    );
    if (v6) throw new MsgError({ key: 'stunNoIpv4', vars: { host: hp.host } });
    const e = err as NodeJS.ErrnoException;
    throw new MsgError({ key: 'stunResolveFailed', vars: { host: hp.host, detail: e.code ?? e.message } });
  }
}

function seconds(ms: number): number {
  return Math.round(ms / 100) / 10;
}

function resultOf(m: StunMessage, label: string, from: StunAddress): BindingResult {
  if (m.cls === 'error') {
    const e = m.attrs.errorCode;
    throw new MsgError({ key: 'stunErrorAnswer', vars: { code: e?.code ?? 0, reason: e?.reason ?? '' } });
  }
  const mapped = mappedOf(m);
  if (!mapped) throw new MsgError({ key: 'stunNoMappedAddress' });
  const r: BindingResult = { mapped, server: label, from };
  const origin = m.attrs.responseOrigin ?? m.attrs.sourceAddress;
  const other = m.attrs.otherAddress ?? m.attrs.changedAddress;
  if (origin) r.responseOrigin = origin;
  if (other) r.otherAddress = other;
  return r;
}

function closedError(): Error {
  const e = new Error('the STUN client was closed');
  e.name = 'AbortError';
  return e;
}

interface Pending {
  label: string;
  /** Why the last datagram carrying our transaction id could not be read: said at the deadline instead of "no answer". */
  bad: string | null;
  settle(err: unknown, result?: BindingResult): void;
}

/**
 * Binding transactions over a socket someone else owns and reads: the owner passes every datagram
 * to offer(), and keeps those it returns false for.
 */
export class UdpStunClient {
  private readonly pending = new Map<string, Pending>();
  private readonly settled = new Map<string, number>();
  private closed = false;

  constructor(
    private readonly send: (buf: Buffer, port: number, address: string) => void,
    private readonly opts: UdpStunClientOptions = {},
  ) {}

  binding(server: StunServer, o: BindingOptions = {}): Promise<BindingResult> {
    if (this.closed) return Promise.reject(closedError());
    if (o.signal?.aborted) return Promise.reject(o.signal.reason);
    const timeoutMs = o.timeoutMs ?? STUN_DEFAULT_TIMEOUT_MS;
    const maxTransmits = this.opts.maxTransmits ?? 7;
    const { transactionId, buf } = bindingRequest({ changeIp: o.changeIp, changePort: o.changePort });
    const key = transactionId.toString('hex');
    this.prune();
    return new Promise<BindingResult>((resolve, reject) => {
      let rto = this.opts.rtoMs ?? 500;
      let sent = 0;
      let retransmit: NodeJS.Timeout | undefined;
      const onAbort = () => p.settle(o.signal!.reason);
      const deadline = setTimeout(() => {
        p.settle(p.bad !== null ? new MsgError({ key: 'stunBadAnswer', vars: { detail: p.bad } }) : new MsgError({ key: 'stunTimeout', vars: { seconds: seconds(timeoutMs) } }));
      }, timeoutMs);
      const p: Pending = {
        label: server.label,
        bad: null,
        settle: (err, result) => {
          if (!this.pending.delete(key)) return;
          clearTimeout(deadline);
          clearTimeout(retransmit);
          o.signal?.removeEventListener('abort', onAbort);
          this.settled.set(key, Date.now() + LATE_ANSWER_MS);
          if (result) resolve(result);
          else reject(err);
        },
      };
      const transmit = () => {
        try {
          this.send(buf, server.port, server.address);
        } catch (err) {
          p.settle(err);
          return;
        }
        if (++sent < maxTransmits) {
          retransmit = setTimeout(transmit, rto);
          rto *= 2;
        }
      };
      this.pending.set(key, p);
      o.signal?.addEventListener('abort', onAbort, { once: true });
      transmit();
    });
  }

  /** True when the datagram answers one of our transactions (pending or recently settled). */
  offer(msg: Buffer, rinfo: { address: string; port: number }): boolean {
    if (!isStunPacket(msg)) return false;
    const key = msg.toString('hex', 8, STUN_HEADER_LENGTH);
    const p = this.pending.get(key);
    if (!p) return this.settled.has(key);
    let m: StunMessage;
    try {
      m = decodeStun(msg);
    } catch (err) {
      // Keep waiting: a broken datagram must not end a transaction the real server may still answer.
      p.bad = err instanceof StunParseError ? err.detail : String(err);
      return true;
    }
    if (m.cls !== 'success' && m.cls !== 'error') return false;
    try {
      p.settle(null, resultOf(m, p.label, { address: rinfo.address, port: rinfo.port }));
    } catch (err) {
      p.settle(err);
    }
    return true;
  }

  /** Rejects what is pending; later calls to binding() fail at once. */
  close(): void {
    this.closed = true;
    for (const p of [...this.pending.values()]) p.settle(closedError());
    this.settled.clear();
  }

  private prune(): void {
    const now = Date.now();
    for (const [k, until] of this.settled) if (until < now || this.settled.size > LATE_ANSWER_MAX) this.settled.delete(k);
  }
}

/**
 * One Binding transaction on a connected TCP socket, which stays open and the caller's (no
 * retransmission on a stream: RFC 8489 6.2.2). The socket's data events are ours until this settles.
 */
export function tcpBinding(socket: TcpSocket, label: string, timeoutMs: number): Promise<BindingResult> {
  const { transactionId, buf } = bindingRequest();
  return new Promise<BindingResult>((resolve, reject) => {
    let got = Buffer.alloc(0);
    const done = (err: unknown, result?: BindingResult) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('error', onError);
      socket.off('close', onClose);
      if (result) resolve(result);
      else reject(err);
    };
    const onData = (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      if (got.length < STUN_HEADER_LENGTH) return;
      const need = stunFrameLength(got);
      if (need === null) return done(new StunParseError('the server sent something that is not STUN'));
      if (got.length < need) return;
      try {
        const m = decodeStun(got.subarray(0, need));
        if (!m.transactionId.equals(transactionId)) throw new StunParseError('an answer to another transaction');
        if (m.cls !== 'success' && m.cls !== 'error') throw new StunParseError(`a ${m.cls} instead of an answer`);
        done(null, resultOf(m, label, { address: socket.remoteAddress ?? '', port: socket.remotePort ?? 0 }));
      } catch (err) {
        done(err);
      }
    };
    const onError = (err: Error) => done(new MsgError({ key: 'stunConnectFailed', vars: { server: label, detail: (err as NodeJS.ErrnoException).code ?? err.message } }));
    const onClose = () => done(new MsgError({ key: 'stunConnectFailed', vars: { server: label, detail: 'closed' } }));
    const timer = setTimeout(() => done(new MsgError({ key: 'stunTimeout', vars: { seconds: seconds(timeoutMs) } })), timeoutMs);
    socket.on('data', onData);
    socket.once('error', onError);
    socket.once('close', onClose);
    socket.write(buf);
  });
}
