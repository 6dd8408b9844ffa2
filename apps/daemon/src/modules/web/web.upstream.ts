/**
 * The reverse proxy's HTTP/1.1 client: a keep-alive connection pool per backend and a response
 * parser. It replaces undici on this path because undici cost about twice the CPU of everything else
 * a proxied request does (stream machinery on every socket read, a wasm parser calling back into JS,
 * an extra event-loop turn before each reuse of a socket). The answers are read by web.response.ts. Plain TCP backends are read through
 * `onread` into one shared buffer, which skips the readable-stream layer entirely; TLS backends and
 * upgrades read 'data' events. Bodies are handed on as copies, never as views of the shared buffer.
 */
import { connect as netConnect, isIP, type Socket } from 'node:net';
import type { Duplex, Readable } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { ResponseParser, type ResponseHead, type ResponseSink } from './web.response.js';

/** One read lands here; everything kept beyond the callback is copied out. */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);
/** A backend's `Keep-Alive: timeout=N` is trusted minus this much, so that we never race its close. */
const KEEPALIVE_MARGIN_MS = 2000;
const KEEPALIVE_MAX_MS = 600_000;
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

export type UpstreamErrorCode =
  | 'UPSTREAM_CLOSED'
  | 'CONNECT_TIMEOUT'
  | 'HEADERS_TIMEOUT'
  | 'BODY_TIMEOUT'
  | 'BAD_RESPONSE'
  | 'POOL_CLOSED'
  | 'ABORTED';

/** Errors from the client carry `code`: one of UpstreamErrorCode or a socket's own (ECONNREFUSED...). */
export class UpstreamError extends Error {
  constructor(
    readonly code: UpstreamErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface UpstreamTarget {
  tls: boolean;
  /** Name or address, IPv6 without brackets. */
  hostname: string;
  port: number;
  rejectUnauthorized: boolean;
}

export interface UpstreamOptions {
  maxConnections: number;
  /** Idle keep-alive connections are closed after this, unless the backend announced less. */
  idleMs: number;
  /** No byte sent or received for this long fails the request (504 before the head, cut after). */
  timeoutMs: number;
  connectTimeoutMs: number;
}

export interface UpstreamRequest {
  method: string;
  /** Path and query, already valid for a request line. */
  path: string;
  /** Flat [name, value, ...], already free of CR/LF (node's parser and the contracts see to that). */
  headers: string[];
  /** Streamed after the head; framed by the Content-Length in `headers`, else chunked. */
  body?: Readable | null;
  /** Protocol for an Upgrade request (websocket...): the answer is expected to be 101. */
  upgrade?: string;
}

export interface UpstreamHandler {
  /** The final head (1xx interim answers are skipped). Returning false abandons the response. */
  onHead(status: number, headers: string[]): boolean;
  /** A body chunk the handler owns. Returning false pauses reading until `Exchange.resume()`. */
  onData(chunk: Buffer): boolean;
  onEnd(): void;
  onError(err: Error & { code?: string }): void;
  /** A 101 answer to an upgrade request: the socket is the handler's from now on. */
  onUpgrade?(status: number, headers: string[], socket: Duplex, rest: Buffer): void;
}

/** One request on its way: queued, then on a connection, then done. */
export class Exchange {
  conn: Conn | null = null;
  done = false;
  /** Sent again once already, after a reused connection turned out closed. */
  retried = false;
  /** The request body is still being sent. */
  sending = false;
  /** Body-less and idempotent (RFC 9110 section 9.2.2): sending it twice does no harm. */
  readonly repeatable: boolean;

  constructor(
    private pool: UpstreamPool,
    readonly head: string,
    readonly noBody: boolean,
    readonly body: Readable | null,
    readonly chunked: boolean,
    readonly upgrade: boolean,
    readonly handler: UpstreamHandler,
    method: string,
  ) {
    this.repeatable = body === null && IDEMPOTENT.has(method);
  }

  /** The client went away: the response is not wanted (its connection cannot be reused). */
  abort(): void {
    if (this.done) return;
    this.done = true;
    if (this.conn) this.conn.destroy(null);
    else this.pool.unqueue(this);
  }

  /** Reading resumes after a handler's onData returned false. */
  resume(): void {
    this.conn?.resume();
  }

  fail(err: Error): void {
    if (this.done) return;
    this.done = true;
    this.handler.onError(err);
  }
}

class Conn implements ResponseSink {
  socket!: Socket;
  ex: Exchange | null = null;
  readonly parser = new ResponseParser(this);
  private reusable = true;
  /** The current exchange has seen a byte of its answer. */
  private answered = false;
  uses = 0;
  idleSince = 0;
  idleLimit: number;
  lastActive = 0;
  paused = false;
  dead = false;

  constructor(
    private pool: UpstreamPool,
    readonly dataMode: boolean,
  ) {
    this.idleLimit = pool.opts.idleMs;
  }

  /** Waiting for no answer: a connection in the idle list, or one between answers. */
  get idle(): boolean {
    return !this.parser.busy;
  }

  send(ex: Exchange): void {
    this.ex = ex;
    ex.conn = this;
    this.parser.expect(ex.noBody, ex.upgrade);
    this.answered = false;
    this.lastActive = Date.now();
    this.socket.write(ex.head, 'latin1');
    if (ex.body) this.sendBody(ex, ex.body);
  }

  /** Streams the request body, with backpressure both ways; a client that breaks off ends the exchange. */
  private sendBody(ex: Exchange, body: Readable): void {
    const sock = this.socket;
    ex.sending = true;
    const onData = (chunk: Buffer) => {
      this.lastActive = Date.now();
      let ok: boolean;
      if (ex.chunked) {
        sock.cork();
        sock.write(chunk.length.toString(16) + '\r\n', 'latin1');
        sock.write(chunk);
        ok = sock.write('\r\n', 'latin1');
        sock.uncork();
      } else ok = sock.write(chunk);
      if (!ok) {
        body.pause();
        sock.once('drain', () => body.resume());
      }
    };
    const stop = () => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onBroken);
      body.off('close', onClose);
      ex.sending = false;
    };
    const onEnd = () => {
      stop();
      if (ex.chunked && !this.dead && this.ex === ex) sock.write('0\r\n\r\n', 'latin1');
    };
    const onBroken = () => {
      stop();
      if (this.ex === ex) this.destroy(new UpstreamError('ABORTED', 'client request broke off'));
    };
    const onClose = () => {
      if (ex.sending && !(body as { complete?: boolean }).complete) onBroken();
    };
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onBroken);
    body.on('close', onClose);
    // Stops sending when the exchange ends first (an early answer, an error): the rest is drained.
    sock.once('close', () => {
      if (ex.sending) {
        stop();
        body.resume();
      }
    });
  }

  /** From `onread`: false stops reading until resume(). */
  onRead(buf: Buffer, n: number): boolean {
    this.feed(buf, 0, n);
    return !this.paused && !this.dead;
  }

  private onData(chunk: Buffer): void {
    this.feed(chunk, 0, chunk.length);
    if (this.paused && !this.dead) this.socket.pause();
  }

  resume(): void {
    if (!this.paused || this.dead) return;
    this.paused = false;
    this.lastActive = Date.now();
    this.socket.resume();
  }

  private feed(input: Buffer, from: number, to: number): void {
    const ex = this.ex;
    if (!ex || ex.done || !this.parser.busy) {
      // Bytes while idle (or after an abort): nothing may follow an answer on HTTP/1.1.
      this.destroy(null);
      return;
    }
    this.answered = true;
    this.lastActive = Date.now();
    this.parser.feed(input, from, to);
  }

  // ---------------------------------------------------------------- what the parser found

  onHead(head: ResponseHead): boolean {
    const ex = this.ex!;
    this.reusable = !head.close && !head.otherEncoding && !ex.upgrade && !this.parser.readsToClose;
    const idle = head.keepAliveMs >= 0 ? Math.min(head.keepAliveMs - KEEPALIVE_MARGIN_MS, KEEPALIVE_MAX_MS) : this.pool.opts.idleMs;
    if (idle <= 0) this.reusable = false;
    else this.idleLimit = idle;
    if (ex.handler.onHead(head.status, head.headers)) return true;
    ex.done = true;
    this.destroy(null);
    return false;
  }

  onBody(chunk: Buffer): void {
    if (!this.ex!.handler.onData(chunk)) this.paused = true;
  }

  onBad(why: string): void {
    this.destroy(new UpstreamError('BAD_RESPONSE', `bad response from the backend: ${why}`));
  }

  /** The answer is complete; `extra` = more bytes followed it (the connection is not trusted again). */
  onComplete(extra: boolean): void {
    const ex = this.ex!;
    this.ex = null;
    ex.conn = null;
    ex.done = true;
    this.uses++;
    // A body still on its way (the backend answered early) would be taken as the next request.
    const reuse = this.reusable && !extra && !ex.sending && !this.pool.closed;
    if (!reuse) this.destroy(null);
    else if (this.paused) {
      // Held back for this client's sake only: an idle connection must read, to notice a close.
      this.paused = false;
      this.socket.resume();
    }
    ex.handler.onEnd();
    if (reuse && !this.dead) this.pool.release(this);
  }

  onUpgrade(head: ResponseHead, rest: Buffer): void {
    const ex = this.ex!;
    this.ex = null;
    ex.conn = null;
    ex.done = true;
    this.dead = true;
    this.pool.forget(this);
    this.detach();
    if (ex.handler.onUpgrade) ex.handler.onUpgrade(head.status, head.headers, this.socket, rest);
    else this.socket.destroy();
  }

  // ---------------------------------------------------------------- the socket

  /** Takes the socket's events (and, for plain backends, its reads straight from the shared buffer). */
  attach(socket: Socket): void {
    this.socket = socket;
    if (this.dataMode) socket.on('data', this.onDataEvent);
    socket.on('end', this.onEndEvent);
    socket.on('error', this.onErrorEvent);
    socket.on('close', this.onCloseEvent);
  }

  private detach(): void {
    const s = this.socket;
    s.off('data', this.onDataEvent);
    s.off('end', this.onEndEvent);
    s.off('error', this.onErrorEvent);
    s.off('close', this.onCloseEvent);
  }

  private onDataEvent = (chunk: Buffer) => this.onData(chunk);
  private onEndEvent = () => this.onEnd();
  private onErrorEvent = (err: Error) => this.destroy(err);
  private onCloseEvent = () => this.destroy(new UpstreamError('UPSTREAM_CLOSED', 'the backend connection closed'));

  /** The socket ended: the end of a body that runs to the close, otherwise a broken exchange. */
  private onEnd(): void {
    if (this.ex && this.parser.readsToClose) {
      this.reusable = false;
      this.parser.ended();
      return;
    }
    this.destroy(new UpstreamError('UPSTREAM_CLOSED', 'the backend closed the connection'));
  }

  timedOut(): void {
    const seen = this.parser.headSeen;
    this.destroy(new UpstreamError(seen ? 'BODY_TIMEOUT' : 'HEADERS_TIMEOUT', seen ? 'the backend stopped sending its answer' : 'the backend did not answer in time'));
  }

  /** Closes the connection; an exchange on it fails with `err` or, if it never got an answer on a reused connection, is sent again. */
  destroy(err: (Error & { code?: string }) | null): void {
    if (this.dead) return;
    this.dead = true;
    this.parser.reset();
    this.socket.destroy();
    this.pool.forget(this);
    const ex = this.ex;
    this.ex = null;
    if (!ex || ex.done) return;
    ex.conn = null;
    // Most likely a kept-alive connection the backend had closed meanwhile, and the request never
    // reached it; but it may have, so only a request that may be repeated is sent again.
    const stale = err !== null && (err.code === 'UPSTREAM_CLOSED' || err.code === 'ECONNRESET' || err.code === 'EPIPE');
    if (stale && !this.answered && this.uses > 0 && ex.repeatable && !ex.retried && !this.pool.closed) {
      ex.retried = true;
      this.pool.sendFresh(ex);
      return;
    }
    ex.fail(err ?? new UpstreamError('UPSTREAM_CLOSED', 'the backend connection closed'));
  }
}

/** Keep-alive connections to one backend. */
export class UpstreamPool {
  private all = new Set<Conn>();
  /** Most recently used last: reuse the warmest connection, let the others idle out. */
  private idle: Conn[] = [];
  private queue: Exchange[] = [];
  private timer: NodeJS.Timeout | null = null;
  closed = false;

  constructor(
    readonly target: UpstreamTarget,
    readonly opts: UpstreamOptions,
  ) {}

  get connections(): number {
    return this.all.size;
  }

  request(r: UpstreamRequest, handler: UpstreamHandler): Exchange {
    const body = r.body ?? null;
    let extra = '';
    let chunked = false;
    if (r.upgrade) extra = `connection: upgrade\r\nupgrade: ${r.upgrade}\r\n`;
    else if (body || r.method === 'POST' || r.method === 'PUT' || r.method === 'PATCH') {
      // A body without a length goes chunked; a body-less POST still says so to strict backends.
      let hasLength = false;
      for (let i = 0; i < r.headers.length; i += 2) if (r.headers[i]!.length === 14 && r.headers[i]!.toLowerCase() === 'content-length') hasLength = true;
      if (!hasLength) {
        chunked = body !== null;
        extra = chunked ? 'transfer-encoding: chunked\r\n' : 'content-length: 0\r\n';
      }
    }
    let head = `${r.method} ${r.path} HTTP/1.1\r\n`;
    const h = r.headers;
    for (let i = 0; i < h.length; i += 2) head += `${h[i]}: ${h[i + 1]}\r\n`;
    head += `${extra}\r\n`;
    const ex = new Exchange(this, head, r.method === 'HEAD', body, chunked, !!r.upgrade, handler, r.method);
    if (this.closed) ex.fail(new UpstreamError('POOL_CLOSED', 'the backend pool is closed'));
    else if (ex.upgrade) this.sendFresh(ex);
    else this.assign(ex);
    return ex;
  }

  private assign(ex: Exchange): void {
    const now = Date.now();
    let c: Conn | undefined;
    while ((c = this.idle.pop()) !== undefined) {
      if (!c.dead && now - c.idleSince < c.idleLimit) break;
      c.destroy(null);
    }
    if (c) c.send(ex);
    else if (this.all.size < this.opts.maxConnections) this.open(false).send(ex);
    else this.queue.push(ex);
  }

  /** On a new connection of its own (upgrades, and a request whose kept-alive connection had closed). */
  sendFresh(ex: Exchange): void {
    this.open(ex.upgrade).send(ex);
  }

  unqueue(ex: Exchange): void {
    const i = this.queue.indexOf(ex);
    if (i >= 0) this.queue.splice(i, 1);
  }

  release(c: Conn): void {
    if (this.closed) return c.destroy(null);
    let next = this.queue.shift();
    while (next?.done) next = this.queue.shift();
    if (next) return c.send(next);
    c.idleSince = Date.now();
    this.idle.push(c);
  }

  forget(c: Conn): void {
    if (!this.all.delete(c)) return;
    const i = this.idle.lastIndexOf(c);
    if (i >= 0) this.idle.splice(i, 1);
    if (!this.closed && this.queue.length && this.all.size < this.opts.maxConnections) {
      let next = this.queue.shift();
      while (next?.done) next = this.queue.shift();
      if (next) this.open(false).send(next);
    }
    if (this.all.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  private open(dataMode: boolean): Conn {
    const t = this.target;
    const conn = new Conn(this, dataMode || t.tls);
    const common = { host: t.hostname, port: t.port, noDelay: true, keepAlive: true, keepAliveInitialDelay: 60_000 };
    let socket: Socket;
    if (t.tls) {
      socket = tlsConnect({
        ...common,
        // RFC 6066: no SNI for addresses.
        ...(isIP(t.hostname) ? {} : { servername: t.hostname }),
        rejectUnauthorized: t.rejectUnauthorized,
        ALPNProtocols: ['http/1.1'],
      });
    } else if (conn.dataMode) {
      socket = netConnect(common);
    } else {
      socket = netConnect({ ...common, onread: { buffer: READ_BUFFER, callback: (n: number, buf: Buffer) => conn.onRead(buf, n) } });
    }
    conn.attach(socket);
    const connectTimer = setTimeout(
      () => conn.destroy(new UpstreamError('CONNECT_TIMEOUT', `no connection to the backend within ${this.opts.connectTimeoutMs} ms`)),
      this.opts.connectTimeoutMs,
    );
    socket.once(t.tls ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
    socket.once('close', () => clearTimeout(connectTimer));
    this.all.add(conn);
    if (!this.timer) {
      // One timer for every connection: timeouts and idle expiry are checked a few times per timeout.
      const period = Math.max(50, Math.min(1000, this.opts.timeoutMs / 4, this.opts.idleMs / 4));
      this.timer = setInterval(() => this.sweep(), period);
      this.timer.unref();
    }
    return conn;
  }

  private sweep(): void {
    const now = Date.now();
    for (const c of this.all) {
      if (c.ex) {
        // A connect has its own timer; a paused one waits for its client, not for the backend.
        if (!c.paused && !c.socket.connecting && now - c.lastActive > this.opts.timeoutMs) c.timedOut();
      } else if (c.idle && c.idleSince > 0 && now - c.idleSince >= c.idleLimit) c.destroy(null);
    }
  }

  /** No new requests; idle connections close now, busy ones after their answer. */
  close(): void {
    this.closed = true;
    for (const c of [...this.idle]) c.destroy(null);
    const queued = this.queue.splice(0);
    for (const ex of queued) ex.fail(new UpstreamError('POOL_CLOSED', 'the backend pool is closed'));
  }

  /** Cuts every connection. */
  destroy(): void {
    this.close();
    for (const c of [...this.all]) c.destroy(new UpstreamError('POOL_CLOSED', 'the backend pool is closed'));
  }
}
