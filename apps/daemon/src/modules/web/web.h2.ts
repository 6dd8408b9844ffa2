/**
 * HTTP/2 on a rule's HTTPS listener. The listener stays Node's HTTPS server, so HTTP/1.1 keeps its
 * own parser, limits and timeouts; a connection whose ALPN chose `h2` is handed to an HTTP/2 session
 * instead, and its requests reach the same handler as HTTP/1.1 ones (rule matching, filters, auth,
 * access log, upstream pool). A websocket asked for over h2 (RFC 8441 extended CONNECT) arrives as a
 * CONNECT and is proxied to the backend as an HTTP/1.1 upgrade.
 *
 * What h2 lets a client ask of a server is bounded here: streams per connection, the header list,
 * the memory of a session, invalid frames and refused streams. nghttp2 (inside Node) ends a session
 * that resets streams faster than it may (rapid reset, CVE-2023-44487) or sends endless
 * CONTINUATION frames (CVE-2024-27316) with GOAWAY; the tests hold it to that.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { constants, createServer, Http2ServerRequest, Http2ServerResponse, type ServerHttp2Session, type ServerHttp2Stream, type ServerOptions } from 'node:http2';
import type { Server } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { chunkBytes, h2Exchange, H2Response } from './web.h2exchange.js';
import type { TunnelClient } from './web.proxy.js';

const END_STREAM = constants.NGHTTP2_FLAG_END_STREAM;

/** What an HTTPS listener offers by ALPN, best first. */
export const ALPN_H2 = ['h2', 'http/1.1'];

const H2_OPTIONS: ServerOptions = {
  settings: {
    // As nginx and Caddy: enough for a page's assets at once, not enough to tie up a thread.
    maxConcurrentStreams: 128,
    // The HTTP/1.1 listener takes 16 KiB of head; HPACK counts 32 bytes more per field.
    maxHeaderListSize: 32 * 1024,
    enableConnectProtocol: true,
  },
  maxHeaderListPairs: 128,
  maxSessionMemory: 10,
  maxSessionInvalidFrames: 100,
  maxSessionRejectedStreams: 100,
};

/** A session with no frame either way for this long says GOAWAY; streams still open (websockets) finish first. */
const SESSION_IDLE_MS = 120_000;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const ignore = (): void => undefined;

/**
 * Serves `h2` connections of `server` with `onRequest` (and extended CONNECT with `onConnect`);
 * every other connection stays HTTP/1.1. `sessions` holds the open ones, for a graceful close. A
 * request without a body that `light(headers)` accepts gets the light request and response of
 * web.h2exchange.ts; the others (bodies, CONNECT, Expect, and what the rule serves from files) get
 * Node's compatibility objects, built here as Node builds them.
 */
export function serveH2(server: Server, sessions: Set<ServerHttp2Session>, onRequest: Handler, onConnect: Handler, light: (headers: IncomingHttpHeaders) => boolean): void {
  const h2 = createServer(H2_OPTIONS);
  h2.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, flags: number, rawHeaders: string[]) => {
    // A stream reset by the client with an error code is destroyed with that error.
    stream.on('error', ignore);
    const method = headers[':method'];
    const bodyless = (flags & END_STREAM) !== 0 && (headers['content-length'] === undefined || headers['content-length'] === '0');
    if (method !== 'CONNECT' && headers.expect === undefined && bodyless && light(headers)) {
      const [req, res] = h2Exchange(stream, headers, rawHeaders);
      return onRequest(req, res);
    }
    const req = new Http2ServerRequest(stream, headers, {}, rawHeaders) as unknown as IncomingMessage;
    const res = new Http2ServerResponse(stream) as unknown as ServerResponse;
    countBody(res);
    if (method === 'CONNECT') return onConnect(req, res);
    if (headers.expect !== undefined) {
      // As Node's own server does: a client waiting for 100-continue gets it, any other expectation 417.
      if (headers.expect !== '100-continue') return void (res.writeHead(417).end());
      (res as unknown as Http2ServerResponse).writeContinue();
    }
    onRequest(req, res);
  });
  h2.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    session.setTimeout(SESSION_IDLE_MS, () => session.close());
  });
  // A session's protocol error ends that session (nghttp2 has sent GOAWAY); nothing else to do.
  h2.on('sessionError', () => undefined);
  const http1 = server.listeners('secureConnection') as Array<(s: TLSSocket) => void>;
  server.removeAllListeners('secureConnection');
  server.on('secureConnection', (socket: TLSSocket) => {
    if (socket.alpnProtocol === 'h2') h2.emit('connection', socket);
    else for (const l of http1) l.call(server, socket);
  });
}

/** Asks every open session to finish: GOAWAY, its streams in flight complete, no new ones. */
export function closeSessions(sessions: Set<ServerHttp2Session>): void {
  for (const s of sessions) if (!s.closed) s.close();
}

/** The request came over HTTP/2 (its response has a stream, not a socket of its own). */
export function isH2(req: IncomingMessage): boolean {
  return req.httpVersionMajor === 2;
}

/** Ends one h2 request without an answer (the `close` service): its stream is reset, the connection's other streams carry on. */
export function resetStream(res: ServerResponse): void {
  (res as unknown as Http2ServerResponse).stream.close(constants.NGHTTP2_INTERNAL_ERROR);
}

/** Header names HTTP/2 forbids in a response (RFC 9113 section 8.2.2), and what RFC 8441 has no use for. */
const NOT_H2 = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'sec-websocket-accept']);

function h2Headers(raw: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (!NOT_H2.has(raw[i]!.toLowerCase())) out.push(raw[i]!, raw[i + 1]!);
  return out;
}

/**
 * The client side of a tunnel asked for over h2 (RFC 8441): the backend hears an HTTP/1.1 upgrade
 * with a websocket key of our own (an h2 client sends none), and its 101 becomes a 200 on the stream.
 */
export function streamTunnel(req: IncomingMessage, res: ServerResponse): TunnelClient {
  const stream = (res as unknown as Http2ServerResponse).stream;
  const protocol = String(req.headers[':protocol'] ?? '');
  const answer = (status: number, raw: string[]) => {
    if (res.headersSent) return void stream.destroy();
    res.writeHead(status, h2Headers(raw));
  };
  return {
    stream,
    protocol,
    extraHeaders: protocol.toLowerCase() === 'websocket' ? ['sec-websocket-key', randomBytes(16).toString('base64')] : [],
    switched: (_status, raw) => answer(200, raw),
    answered: answer,
    refuse: (status, raw = []) => {
      answer(status, raw);
      res.end();
    },
    drop: () => resetStream(res),
  };
}

const BODY = Symbol('h2body');
type CountedResponse = ServerResponse & { [BODY]?: number };

/**
 * Counts the body bytes of an h2 response of Node's for the access log: its connection carries
 * other streams, so the socket's count (what HTTP/1.1 uses) says nothing of one response.
 */
function countBody(res: ServerResponse): void {
  const r = res as CountedResponse;
  r[BODY] = 0;
  const write = r.write;
  const end = r.end;
  const add = (chunk: unknown, enc: unknown) => {
    r[BODY]! += chunkBytes(chunk, enc);
  };
  r.write = function (this: ServerResponse, chunk: unknown, enc?: unknown, cb?: unknown) {
    add(chunk, enc);
    return (write as (...a: unknown[]) => boolean).call(this, chunk, enc, cb);
  } as ServerResponse['write'];
  r.end = function (this: ServerResponse, chunk?: unknown, enc?: unknown, cb?: unknown) {
    if (typeof chunk !== 'function') add(chunk, enc);
    return (end as (...a: unknown[]) => ServerResponse).call(this, chunk, enc, cb);
  } as ServerResponse['end'];
}

/** The body bytes counted for an h2 response; undefined for HTTP/1.1. */
export function bodyBytes(res: ServerResponse): number | undefined {
  if (res instanceof H2Response) return res.bodyBytes;
  return (res as CountedResponse)[BODY];
}
