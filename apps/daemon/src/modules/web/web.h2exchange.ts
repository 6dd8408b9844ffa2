/**
 * The request and response of one h2 stream, on Node's core HTTP/2 API rather than its
 * compatibility layer. Node's Http2ServerRequest and Http2ServerResponse wrap every stream in two
 * more stream objects and a dozen listeners: a third of what a proxied h2 request cost (h2load
 * through one serving thread: 21k req/s with them, 29k without, in a bare proxy). These carry what
 * the rule's handler uses of a request without a body (headers, method, path, peer) and of its
 * answer (status, headers, write, end, close), for every service but the file server, which pipes
 * a file into its response and keeps Node's objects (web.h2.ts decides).
 */
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Http2Session, ServerHttp2Stream } from 'node:http2';

type Value = string | string[];
type Listener = (this: H2Response) => void;

const PEER = Symbol('peer');
type PeerSession = Http2Session & { [PEER]?: { remoteAddress: string | undefined } };

/** What the handler reads of a connection: its peer's address (read once per session). */
function peerOf(session: Http2Session | undefined): { remoteAddress: string | undefined } {
  const s = session as PeerSession | undefined;
  if (!s) return { remoteAddress: undefined };
  return (s[PEER] ??= { remoteAddress: s.socket?.remoteAddress });
}

/** A body-less h2 request, as the handler reads an IncomingMessage. */
export class H2Request {
  readonly httpVersionMajor = 2;
  readonly method: string;
  readonly url: string;
  readonly socket: { remoteAddress: string | undefined };

  constructor(
    readonly stream: ServerHttp2Stream,
    readonly headers: IncomingHttpHeaders,
    readonly rawHeaders: string[],
  ) {
    this.method = String(headers[':method'] ?? 'GET');
    this.url = String(headers[':path'] ?? '');
    this.socket = peerOf(stream.session);
  }
}

/** The bytes a body chunk adds to the access log's count. */
export function chunkBytes(chunk: unknown, encoding?: unknown): number {
  if (typeof chunk === 'string') return Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  return chunk instanceof Uint8Array ? chunk.byteLength : 0;
}

function addHeader(out: Record<string, Value>, name: string, value: unknown): void {
  const k = name.toLowerCase();
  const v = Array.isArray(value) ? value.map(String) : String(value);
  const prev = out[k];
  out[k] = prev === undefined ? v : ([] as string[]).concat(prev, v);
}

/** The answer to an H2Request: ServerResponse's calls, straight onto the stream. */
export class H2Response {
  statusCode = 200;
  /** Body bytes written, for the access log (the connection carries other streams). */
  bodyBytes = 0;
  private headers: Record<string, Value> = {};
  private readonly closeListeners: Listener[] = [];

  constructor(
    readonly stream: ServerHttp2Stream,
    readonly req: H2Request,
  ) {
    stream.once('close', () => {
      for (const l of this.closeListeners.splice(0)) l.call(this);
    });
  }

  get headersSent(): boolean {
    return this.stream.headersSent;
  }

  get destroyed(): boolean {
    return this.stream.destroyed;
  }

  setHeader(name: string, value: number | string | readonly string[]): this {
    const k = name.toLowerCase();
    this.headers[k] = Array.isArray(value) ? value.map(String) : String(value);
    return this;
  }

  getHeaders(): OutgoingHttpHeaders {
    return { ...this.headers };
  }

  removeHeader(name: string): void {
    delete this.headers[name.toLowerCase()];
  }

  /**
   * Sends the head: the headers set so far, then `headers` (an object, or a flat [name, value, ...]
   * list whose repeated names all go). Throws as Node does for a header h2 cannot carry.
   */
  writeHead(status: number, headers?: OutgoingHttpHeaders | readonly string[]): this {
    if (this.stream.headersSent || this.stream.destroyed) return this;
    this.statusCode = status;
    const out: Record<string, Value> = { ...this.headers };
    if (Array.isArray(headers)) {
      const given: Record<string, Value> = {};
      for (let i = 0; i < headers.length; i += 2) addHeader(given, headers[i] as string, headers[i + 1]);
      Object.assign(out, given);
    } else if (headers) {
      for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.map(String) : String(value);
    }
    this.stream.respond({ ...out, ':status': status });
    return this;
  }

  flushHeaders(): void {
    if (!this.stream.headersSent) this.writeHead(this.statusCode);
  }

  write(chunk: string | Uint8Array, encoding?: BufferEncoding): boolean {
    this.flushHeaders();
    if (this.stream.writableEnded || this.stream.destroyed) return false;
    this.bodyBytes += chunkBytes(chunk, encoding);
    return encoding ? this.stream.write(chunk, encoding) : this.stream.write(chunk);
  }

  end(chunk?: string | Uint8Array | (() => void), encoding?: BufferEncoding | (() => void), done?: () => void): this {
    if (typeof chunk === 'function') [chunk, encoding, done] = [undefined, undefined, chunk];
    else if (typeof encoding === 'function') [encoding, done] = [undefined, encoding];
    this.flushHeaders();
    // A HEAD request or a 204/304 answer ended the stream with its head.
    if (this.stream.writableEnded || this.stream.destroyed) {
      if (done) queueMicrotask(done);
      return this;
    }
    if (chunk === undefined || chunk.length === 0) this.stream.end(done);
    else {
      this.bodyBytes += chunkBytes(chunk, encoding);
      this.stream.end(chunk, encoding ?? 'utf8', done);
    }
    return this;
  }

  destroy(err?: Error): void {
    this.stream.destroy(err);
  }

  /** 'close' is the response's own (with it as `this`); other events are the stream's. */
  on(event: string, listener: Listener): this {
    if (event === 'close') this.closeListeners.push(listener);
    else this.stream.on(event, listener as () => void);
    return this;
  }

  once(event: string, listener: Listener): this {
    if (event === 'close') this.closeListeners.push(listener);
    else this.stream.once(event, listener as () => void);
    return this;
  }
}

/** The pair as the handler types them. */
export function h2Exchange(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, rawHeaders: string[]): [IncomingMessage, ServerResponse] {
  const req = new H2Request(stream, headers, rawHeaders);
  return [req as unknown as IncomingMessage, new H2Response(stream, req) as unknown as ServerResponse];
}
