/**
 * The reverse proxy's HTTP/1.1 client: a keep-alive connection pool per backend and a response
 * parser. It replaces undici on this path because undici cost about twice the CPU of everything else
 * a proxied request does (stream machinery on every socket read, a wasm parser calling back into JS,
 * an extra event-loop turn before each reuse of a socket). Plain TCP backends are read through
 * `onread` into one shared buffer, which skips the readable-stream layer entirely; TLS backends and
 * upgrades read 'data' events. Bodies are handed on as copies, never as views of the shared buffer.
 */
import { connect as netConnect, isIP, type Socket } from 'node:net';
import type { Duplex, Readable } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';

/** One read lands here; everything kept beyond the callback is copied out. */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);
const MAX_HEAD = 64 * 1024;
const MAX_CHUNK_LINE = 4096;
const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');
/** A backend's `Keep-Alive: timeout=N` is trusted minus this much, so that we never race its close. */
const KEEPALIVE_MARGIN_MS = 2000;
const KEEPALIVE_MAX_MS = 600_000;
const HEX_RE = /^[0-9A-Fa-f]{1,12}$/;
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

/** What the parser took from a response head. */
export interface ResponseHead {
  status: number;
  /** Flat [name, value, ...] as the backend wrote the names. */
  headers: string[];
  /** -1 when absent. */
  contentLength: number;
  chunked: boolean;
  /** Transfer-Encoding other than chunked last: the body runs to the close. */
  otherEncoding: boolean;
  /** The backend will not keep the connection (Connection: close, or HTTP/1.0 without keep-alive). */
  close: boolean;
  /** From `Keep-Alive: timeout=N`; -1 when not announced. */
  keepAliveMs: number;
}

/** tchar (RFC 9110 section 5.6.2) by character code. */
const TCHAR = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") TCHAR[c.charCodeAt(0)] = 1;

function isToken(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 127 || TCHAR[c] === 0) return false;
  }
  return s.length > 0;
}

/** A decimal number made of digits only (at most 15), else -1. */
function decimal(s: string): number {
  if (s.length === 0 || s.length > 15) return -1;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

function hasToken(list: string, token: string): boolean {
  // The usual header holds one token: no split for it.
  if (!list.includes(',')) return list.length === token.length && list.toLowerCase() === token;
  for (const t of list.split(',')) if (t.trim().toLowerCase() === token) return true;
  return false;
}

/** One header's effect on framing and keep-alive; returns an error text or null. */
function framing(head: ResponseHead, name: string, value: string, ka: { token: boolean }): string | null {
  // Only names of these lengths can matter: most headers skip the lower-casing.
  const n = name.length;
  if (n !== 10 && n !== 14 && n !== 17) return null;
  const lower = name.toLowerCase();
  if (lower === 'content-length') {
    // A repeated or listed length is fine only when every value agrees.
    for (const part of value.includes(',') ? value.split(',') : [value]) {
      const len = decimal(part.trim());
      if (len < 0) return 'bad Content-Length';
      if (head.contentLength >= 0 && head.contentLength !== len) return 'conflicting Content-Length';
      head.contentLength = len;
    }
  } else if (lower === 'transfer-encoding') {
    const codings = value.split(',');
    const last = codings[codings.length - 1]!.trim().toLowerCase();
    head.chunked = last === 'chunked';
    head.otherEncoding = !head.chunked;
  } else if (lower === 'connection') {
    if (hasToken(value, 'close')) head.close = true;
    if (hasToken(value, 'keep-alive')) ka.token = true;
  } else if (lower === 'keep-alive') {
    const m = /(?:^|[,;\s])timeout\s*=\s*(\d+)/i.exec(value);
    if (m) head.keepAliveMs = Number(m[1]) * 1000;
  }
  return null;
}

/** Parses a response head (status line and header lines, without the blank line); a string is the error. */
export function parseHead(text: string): ResponseHead | string {
  let eol = text.indexOf('\r\n');
  if (eol < 0) eol = text.length;
  // "HTTP/1.1 200" with an optional reason after a space.
  if (eol < 12 || !text.startsWith('HTTP/1.') || text.charCodeAt(8) !== 32 || (eol > 12 && text.charCodeAt(12) !== 32)) {
    return 'bad status line';
  }
  const minor = text.charCodeAt(7) - 48;
  const status = decimal(text.slice(9, 12));
  if ((minor !== 0 && minor !== 1) || status < 100) return 'bad status line';
  const head: ResponseHead = { status, headers: [], contentLength: -1, chunked: false, otherEncoding: false, close: false, keepAliveMs: -1 };
  const ka = { token: false };
  let pos = eol + 2;
  while (pos < text.length) {
    let next = text.indexOf('\r\n', pos);
    if (next < 0) next = text.length;
    const colon = text.indexOf(':', pos);
    if (colon <= pos || colon > next) return 'bad header line';
    const name = text.slice(pos, colon);
    if (!isToken(name)) return 'bad header name';
    let vs = colon + 1;
    let ve = next;
    while (vs < ve && (text.charCodeAt(vs) === 32 || text.charCodeAt(vs) === 9)) vs++;
    while (ve > vs && (text.charCodeAt(ve - 1) === 32 || text.charCodeAt(ve - 1) === 9)) ve--;
    const value = text.slice(vs, ve);
    const bad = framing(head, name, value, ka);
    if (bad) return bad;
    head.headers.push(name, value);
    pos = next + 2;
  }
  if (head.contentLength >= 0 && (head.chunked || head.otherEncoding)) return 'both Content-Length and Transfer-Encoding';
  if (minor === 0 && !ka.token) head.close = true;
  return head;
}

function copyOf(buf: Buffer, start: number, end: number): Buffer {
  const out = Buffer.allocUnsafe(end - start);
  buf.copy(out, 0, start, end);
  return out;
}

/** `needle` inside buf[start, end), or -1 (the shared buffer holds stale bytes past `end`). */
function find(buf: Buffer, needle: Buffer, start: number, end: number): number {
  const i = buf.indexOf(needle, start);
  return i >= 0 && i + needle.length <= end ? i : -1;
}

// Parser phases of a connection.
const IDLE = 0;
const HEAD = 1;
const LENGTH = 2;
const CHUNK_SIZE = 3;
const CHUNK_DATA = 4;
const CHUNK_END = 5;
const TRAILERS = 6;
const TO_CLOSE = 7;

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

class Conn {
  socket!: Socket;
  ex: Exchange | null = null;
  phase = IDLE;
  /** An unfinished head, chunk-size line or trailer block, kept until the rest arrives. */
  private pending: Buffer | null = null;
  private remaining = 0;
  private reusable = true;
  /** The current exchange has seen a byte of its answer. */
  private answered = false;
  private headSeen = false;
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

  send(ex: Exchange): void {
    this.ex = ex;
    ex.conn = this;
    this.phase = HEAD;
    this.answered = false;
    this.headSeen = false;
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
    if (!ex || ex.done) {
      // Bytes while idle (or after an abort): nothing may follow an answer on HTTP/1.1.
      this.destroy(null);
      return;
    }
    this.answered = true;
    this.lastActive = Date.now();
    let buf = input;
    let start = from;
    let end = to;
    if (this.pending) {
      buf = Buffer.concat([this.pending, input.subarray(from, to)]);
      this.pending = null;
      start = 0;
      end = buf.length;
    }
    while (start < end && this.ex === ex && !this.dead) {
      switch (this.phase) {
        case HEAD:
          start = this.readHead(ex, buf, start, end);
          break;
        case LENGTH:
        case CHUNK_DATA:
          start = this.readBody(ex, buf, start, end);
          break;
        case CHUNK_SIZE:
          start = this.readChunkSize(buf, start, end);
          break;
        case CHUNK_END:
          start = this.readChunkEnd(buf, start, end);
          break;
        case TRAILERS:
          start = this.readTrailers(ex, buf, start, end);
          break;
        case TO_CLOSE:
          this.deliver(ex, copyOf(buf, start, end));
          start = end;
          break;
        default:
          this.destroy(null);
          return;
      }
    }
  }

  /** Keeps buf[start, end) for the next read; returns `end`. */
  private stash(buf: Buffer, start: number, end: number, limit: number, what: string): number {
    if (end - start > limit) this.destroy(new UpstreamError('BAD_RESPONSE', `${what} too large`));
    else this.pending = copyOf(buf, start, end);
    return end;
  }

  private readHead(ex: Exchange, buf: Buffer, start: number, end: number): number {
    const at = find(buf, HEAD_END, start, end);
    if (at < 0) return this.stash(buf, start, end, MAX_HEAD, 'response head');
    if (at - start > MAX_HEAD) return this.bad('response head too large');
    const head = parseHead(buf.toString('latin1', start, at));
    if (typeof head === 'string') return this.bad(head);
    const next = at + 4;
    const status = head.status;
    if (status === 101 && ex.upgrade) {
      this.upgraded(ex, head, buf, next, end);
      return end;
    }
    if (status < 200) return status === 101 ? this.bad('101 without an upgrade request') : next; // interim answers are not passed on
    this.headSeen = true;
    this.reusable = !head.close && !head.otherEncoding && !ex.upgrade;
    const idle = head.keepAliveMs >= 0 ? Math.min(head.keepAliveMs - KEEPALIVE_MARGIN_MS, KEEPALIVE_MAX_MS) : this.pool.opts.idleMs;
    if (idle <= 0) this.reusable = false;
    else this.idleLimit = idle;
    if (ex.noBody || status === 204 || status === 304) this.phase = IDLE;
    else if (head.chunked) this.phase = CHUNK_SIZE;
    else if (head.contentLength >= 0) {
      this.phase = head.contentLength > 0 ? LENGTH : IDLE;
      this.remaining = head.contentLength;
    } else {
      this.phase = TO_CLOSE;
      this.reusable = false;
    }
    if (!ex.handler.onHead(status, head.headers)) {
      ex.done = true;
      this.destroy(null);
      return end;
    }
    if (this.phase === IDLE) this.complete(ex, next < end);
    return next;
  }

  private readBody(ex: Exchange, buf: Buffer, start: number, end: number): number {
    const n = Math.min(this.remaining, end - start);
    this.remaining -= n;
    const chunk = copyOf(buf, start, start + n);
    const last = this.remaining === 0;
    if (last) this.phase = this.phase === LENGTH ? IDLE : CHUNK_END;
    this.deliver(ex, chunk);
    if (last && this.phase === IDLE && this.ex === ex) this.complete(ex, start + n < end);
    return start + n;
  }

  private readChunkSize(buf: Buffer, start: number, end: number): number {
    const at = find(buf, CRLF, start, end);
    if (at < 0) return this.stash(buf, start, end, MAX_CHUNK_LINE, 'chunk size line');
    const line = buf.toString('latin1', start, at);
    // Chunk extensions (";name=value") are allowed and ignored.
    const semi = line.indexOf(';');
    const hex = (semi < 0 ? line : line.slice(0, semi)).trim();
    if (!HEX_RE.test(hex)) return this.bad('bad chunk size');
    const size = parseInt(hex, 16);
    if (size === 0) this.phase = TRAILERS;
    else {
      this.phase = CHUNK_DATA;
      this.remaining = size;
    }
    return at + 2;
  }

  private readChunkEnd(buf: Buffer, start: number, end: number): number {
    if (end - start < 2) return this.stash(buf, start, end, 2, 'chunk end');
    if (buf[start] !== 13 || buf[start + 1] !== 10) return this.bad('chunk not followed by CRLF');
    this.phase = CHUNK_SIZE;
    return start + 2;
  }

  /** Trailers are read and dropped (the answer to the client is re-framed). */
  private readTrailers(ex: Exchange, buf: Buffer, start: number, end: number): number {
    if (end - start < 2) return this.stash(buf, start, end, 2, 'trailers');
    let next: number;
    if (buf[start] === 13 && buf[start + 1] === 10) next = start + 2;
    else {
      const at = find(buf, HEAD_END, start, end);
      if (at < 0) return this.stash(buf, start, end, MAX_HEAD, 'trailers');
      next = at + 4;
    }
    this.phase = IDLE;
    this.complete(ex, next < end);
    return next;
  }

  private deliver(ex: Exchange, chunk: Buffer): void {
    if (!ex.handler.onData(chunk)) this.paused = true;
  }

  private bad(why: string): number {
    this.destroy(new UpstreamError('BAD_RESPONSE', `bad response from the backend: ${why}`));
    return Number.MAX_SAFE_INTEGER;
  }

  /** The answer is complete; `extra` = more bytes followed it (the connection is not trusted again). */
  private complete(ex: Exchange, extra: boolean): void {
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

  private upgraded(ex: Exchange, head: ResponseHead, buf: Buffer, start: number, end: number): void {
    const rest = copyOf(buf, start, end);
    this.ex = null;
    ex.conn = null;
    ex.done = true;
    this.dead = true;
    this.pool.forget(this);
    this.detach();
    if (ex.handler.onUpgrade) ex.handler.onUpgrade(head.status, head.headers, this.socket, rest);
    else this.socket.destroy();
  }

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
    const ex = this.ex;
    if (ex && this.phase === TO_CLOSE) {
      this.phase = IDLE;
      this.reusable = false;
      this.complete(ex, false);
      return;
    }
    this.destroy(new UpstreamError('UPSTREAM_CLOSED', 'the backend closed the connection'));
  }

  timedOut(): void {
    const code = this.headSeen ? 'BODY_TIMEOUT' : 'HEADERS_TIMEOUT';
    this.destroy(new UpstreamError(code, this.headSeen ? 'the backend stopped sending its answer' : 'the backend did not answer in time'));
  }

  /** Closes the connection; an exchange on it fails with `err` or, if it never got an answer on a reused connection, is sent again. */
  destroy(err: (Error & { code?: string }) | null): void {
    if (this.dead) return;
    this.dead = true;
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
      } else if (c.phase === IDLE && c.idleSince > 0 && now - c.idleSince >= c.idleLimit) c.destroy(null);
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
