/**
 * Moving the bytes of a TCP pair once both ends are connected: the native relay takes plain pairs
 * (see core/relay.ts); TLS on either side, other systems and builds without a compiler are
 * relayed here in JavaScript, with backpressure and half-close.
 */
import { Socket } from 'node:net';
import type { Msg } from '@lucky/contracts';
import { errnoName, nativeTcp } from '../../core/relay.js';
import { proxyV1Header, proxyV2Header, type Endpoints } from './portforward.proxyproto.js';
import { errorDetail, type RuleRun } from './portforward.run.js';
import type { Conn } from './portforward.tcp.js';

/** Ends a pair once; `notable` ends are logged even when connection logging is off. */
export type Finish = (reason: Msg, notable?: boolean) => void;

/** Relays both ways, natively where it can. */
export function relay(run: RuleRun, conn: Conn, up: Socket, inbound: Reader | null, outbound: Reader | null, ends: Endpoints, finish: Finish): void {
  const front = conn.front;
  up.on('error', (err: NodeJS.ErrnoException) => finish({ key: 'pfEndTargetError', vars: { detail: errorDetail(err) } }));
  const pp = run.rule.proxyProtocol;
  const header = pp === 'off' ? null : pp === 'v2' ? proxyV2Header(ends) : proxyV1Header(ends);
  // Plain TCP both ways (both sockets still paused, nothing read yet): the native relay takes the
  // pair once the PROXY header is out; otherwise, or if it declines, JavaScript relays.
  if (run.shared.native && inbound && outbound) {
    const handOver = () => {
      if (conn.upstream !== up || front.destroyed || up.destroyed) return finish({ key: 'pfEndClosed' });
      conn.native = nativeTcp(front, up, run.lim.idleMs, (end) => {
        if (end.reason === 'idle') finish({ key: 'pfEndIdle' });
        else if (end.reason === 'error') finish({ key: 'pfEndClosedBecause', vars: { detail: errnoName(end.errno) } });
        else finish({ key: 'pfEndClosed' });
      });
      if (!conn.native) relayJs(run.lim.idleMs, front, up, inbound, outbound, null, finish);
    };
    if (header) up.write(header, (err) => (err ? undefined : handOver()));
    else handOver();
    return;
  }
  relayJs(run.lim.idleMs, front, up, inbound, outbound, header, finish);
}

/**
 * Relays in JavaScript. Each side's FIN is passed on (half-close); a side that closed after both
 * its directions ended waits for the other to flush, a side that broke off takes the other with it.
 */
function relayJs(idleMs: number, front: Socket, up: Socket, inbound: Reader | null, outbound: Reader | null, header: Buffer | null, finish: Finish): void {
  front.on('end', () => up.end());
  up.on('end', () => front.end());
  const onClose = (a: Socket, b: Socket) => () => {
    if (b.destroyed || !(a.readableEnded && a.writableFinished)) finish({ key: 'pfEndClosed' });
  };
  front.on('close', onClose(front, up));
  up.on('close', onClose(up, front));
  if (idleMs > 0) {
    const onIdle = () => finish({ key: 'pfEndIdle' });
    front.setTimeout(idleMs, onIdle);
    up.setTimeout(idleMs, onIdle);
  }
  if (header) up.write(header);
  if (inbound) inbound.start(front, up);
  else pump(front, up);
  if (outbound) outbound.start(up, front);
  else pump(up, front);
}

/**
 * Reads land first in one buffer shared by every connection (idle connections own no buffer);
 * a read that fills it moves the connection to a big buffer, which goes back to a small free list
 * when reads turn small again or when the write that carried it is done (so busy relays do not
 * fault in fresh memory for every read).
 */
const READ_SHARED = Buffer.allocUnsafe(64 * 1024);
const READ_BIG = 256 * 1024;
const FREE_MAX = 32;
const freeBig: Buffer[] = [];
const takeBig = (): Buffer => freeBig.pop() ?? Buffer.allocUnsafe(READ_BIG);
const giveBig = (b: Buffer): void => {
  if (freeBig.length < FREE_MAX) freeBig.push(b);
};

/**
 * One direction of a relay that reads with net.Socket `onread` instead of a fresh 64 KiB
 * allocation per read. Bytes read into the shared buffer are copied before they are written (the
 * next read of any connection reuses it). A big buffer is written as it is and reused when the
 * other side took the bytes at once; while the write is pending it belongs to that write (and
 * returns to the free list when written), and the next read gets another one. A full write queue
 * pauses reading until drain.
 */
export class Reader {
  src: Socket | null = null;
  private dst: Socket | null = null;
  private buf: Buffer = READ_SHARED;
  /** Big buffers of writes in flight, in write order; null for writes that completed at once. */
  private lent: Array<Buffer | null> = [];
  private resume = () => this.src?.resume();
  private written = () => {
    const b = this.lent.shift();
    if (b) giveBig(b);
  };
  readonly onread = {
    buffer: () => this.buf,
    callback: (n: number, b: Buffer): boolean => this.chunk(n, b),
  };

  start(src: Socket, dst: Socket): void {
    this.src = src;
    this.dst = dst;
    src.resume();
  }

  private chunk(n: number, b: Buffer): boolean {
    const dst = this.dst;
    if (!dst) return false;
    let ok: boolean;
    if (b === READ_SHARED) {
      ok = dst.write(Buffer.from(b.subarray(0, n)));
      if (n === b.length) this.buf = takeBig();
    } else {
      const i = this.lent.push(b) - 1;
      ok = dst.write(n === b.length ? b : b.subarray(0, n), this.written);
      if (dst.writableLength > 0) {
        // In flight: the write owns `b` now.
        this.buf = n < b.length >> 3 ? READ_SHARED : takeBig();
      } else {
        this.lent[i] = null;
        if (n < b.length >> 3) {
          giveBig(b);
          this.buf = READ_SHARED;
        }
      }
    }
    if (!ok) {
      dst.once('drain', this.resume);
      return false;
    }
    return true;
  }
}

/**
 * Moves an accepted socket's handle into a socket that reads with `reader`. Node has no `onread`
 * for accepted sockets; `new Socket({ handle })` is how its own internals hand sockets over. The
 * old object is closed without its handle. Null when the socket has no handle to hand over.
 */
export function adopt(accepted: Socket, reader: Reader): Socket | null {
  const holder = accepted as unknown as { _handle: unknown };
  const handle = holder._handle;
  if (!handle || accepted.destroyed) return null;
  try {
    const s = new Socket({ handle, allowHalfOpen: true, readable: true, writable: true, pauseOnCreate: true, onread: reader.onread } as ConstructorParameters<typeof Socket>[0]);
    holder._handle = null;
    accepted.destroy();
    reader.src = s;
    return s;
  } catch {
    return null;
  }
}

/**
 * One direction of a relay: what `pipe` does, without its bookkeeping. Reading pauses while the
 * other side's buffer is full and resumes on drain, so memory stays bounded per connection.
 */
function pump(src: Socket, dst: Socket): void {
  src.on('data', (chunk: Buffer) => {
    if (!dst.write(chunk)) src.pause();
  });
  dst.on('drain', () => src.resume());
  src.resume();
}
