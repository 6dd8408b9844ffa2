/**
 * The HTTP client of the calls the daemon makes for the user (IP sources, DNS providers, callbacks,
 * webhooks, ACME, other Lucky devices): undici with a per-call timeout, optional proxy (http, https,
 * socks5), optional skipping of certificate checks, an optional root CA of its own (ACME with a
 * private CA) or a pinned certificate fingerprint (a self-signed device). Dispatchers are shared per (proxy, skipVerify, CA, pin) so that many tasks
 * reuse connections. The one file here that imports undici: import it only where requests are sent.
 */
import { createHash } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { Agent, ProxyAgent, buildConnector, request, type Dispatcher } from 'undici';
import { MsgError } from '../msgerror.js';
import type { HttpFn, HttpOptions } from './request.js';
import { socks5Connector } from './socks5.js';

/** Answers larger than this are cut: IP pages, provider answers and webhooks are all small. */
const MAX_BODY = 1 << 20;

export class HttpClients {
  private dispatchers = new Map<string, Dispatcher>();
  /** Requests sent, for the benchmark and the status page. */
  requests = 0;

  private dispatcher(o: HttpOptions): Dispatcher {
    const p = o.proxy && o.proxy.type !== 'none' ? o.proxy : undefined;
    const ca = o.ca ? createHash('sha256').update(o.ca).digest('hex') : '';
    const key = JSON.stringify([p?.type, p?.address, p?.user, p?.password, !!o.skipVerify, ca, o.pin ?? '']);
    let d = this.dispatchers.get(key);
    if (d) return d;
    const connect = { rejectUnauthorized: !o.skipVerify, ...(o.ca ? { ca: o.ca } : {}) };
    const common = { connections: 64, keepAliveTimeout: 10_000 };
    if (o.pin) d = new Agent({ ...common, connect: pinned(o.pin, { ...connect, rejectUnauthorized: !!o.ca && !o.skipVerify }) });
    else if (!p) d = new Agent({ ...common, connect });
    else if (p.type === 'socks5') {
      d = new Agent({ ...common, connect: socks5Connector({ address: p.address, ...(p.user ? { user: p.user, password: p.password } : {}) }, connect) });
    } else {
      const auth = p.user ? `Basic ${Buffer.from(`${p.user}:${p.password}`).toString('base64')}` : undefined;
      d = new ProxyAgent({
        uri: `${p.type}://${p.address}`,
        ...(auth ? { token: auth } : {}),
        requestTls: connect,
        proxyTls: connect,
      });
    }
    this.dispatchers.set(key, d);
    return d;
  }

  /** A request function bound to one task's options. */
  client(o: HttpOptions): HttpFn {
    const dispatcher = this.dispatcher(o);
    return async (req) => {
      this.requests++;
      // Our own timer, cleared when the answer is in (AbortSignal.timeout would keep every
      // request's timer alive for the full timeout).
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), o.timeoutMs);
      const signal = abort.signal;
      const outer = () => abort.abort();
      req.signal?.addEventListener('abort', outer, { once: true });
      if (req.signal?.aborted) abort.abort();
      try {
        const send = () =>
          request(req.url, {
            method: (req.method ?? 'GET') as Dispatcher.HttpMethod,
            headers: req.headers ?? {},
            ...(req.body !== undefined ? { body: req.body } : {}),
            dispatcher,
            signal,
            headersTimeout: o.timeoutMs,
            bodyTimeout: o.timeoutMs,
          });
        // A kept-alive connection can be dead without anyone knowing: the router's public address
        // changed (its NAT forgot the connection) or the server dropped it just as it was reused.
        // Such a request never reached anyone; sent again once on a new connection, as browsers do.
        const res = await send()
          .catch((err: unknown) => {
            if (signal.aborted || !deadConnection(err)) throw err;
            return send();
          })
          .catch((err: unknown) => {
          if (req.signal?.aborted && req.signal.reason instanceof MsgError) throw req.signal.reason;
          const pin = err instanceof PinMismatch ? err : (err as { cause?: unknown })?.cause instanceof PinMismatch ? ((err as { cause: PinMismatch }).cause) : null;
          if (pin) throw new MsgError({ key: 'httpPinMismatch', vars: { got: pin.got } });
          // The query is left out: tokens travel there.
          throw new MsgError(
            signal.aborted
              ? { key: 'httpTimeout', vars: { seconds: o.timeoutMs / 1000, url: req.url.split('?')[0]! } }
              : { key: 'httpRequestFailed', vars: { detail: describe(err) } },
          );
        });
        const chunks: Buffer[] = [];
        let size = 0;
        const max = o.maxBytes ?? MAX_BODY;
        try {
          for await (const chunk of res.body) {
            size += (chunk as Buffer).length;
            if (size > max) {
              res.body.destroy();
              if (o.maxBytes) throw new MsgError({ key: 'httpTooLarge', vars: { mb: Math.round((o.maxBytes / 1048576) * 10) / 10 } });
              break;
            }
            chunks.push(chunk as Buffer);
          }
        } catch (err) {
          if (err instanceof MsgError) throw err;
          if (req.signal?.aborted && req.signal.reason instanceof MsgError) throw req.signal.reason;
          throw new MsgError(
            signal.aborted
              ? { key: 'httpTimeout', vars: { seconds: o.timeoutMs / 1000, url: req.url.split('?')[0]! } }
              : { key: 'httpRequestFailed', vars: { detail: describe(err) } },
          );
        }
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
        const body = Buffer.concat(chunks);
        if (req.raw) return { status: res.statusCode, headers, text: '', bytes: body };
        return { status: res.statusCode, headers, text: body.toString('utf8') };
      } finally {
        clearTimeout(timer);
        req.signal?.removeEventListener('abort', outer);
      }
    };
  }

  async close(): Promise<void> {
    const all = [...this.dispatchers.values()];
    this.dispatchers.clear();
    await Promise.all(all.map((d) => d.destroy().catch(() => undefined)));
  }
}

/** The error of a connection that was gone before the answer began (reset, closed, broken pipe). */
function deadConnection(err: unknown): boolean {
  const codes = [(err as { code?: string })?.code, (err as { cause?: { code?: string } })?.cause?.code];
  return codes.some((c) => c === 'ECONNRESET' || c === 'EPIPE' || c === 'UND_ERR_SOCKET');
}

/** The server's certificate is not the pinned one. */
class PinMismatch extends Error {
  constructor(readonly got: string) {
    super(`certificate fingerprint ${got} is not the pinned one`);
  }
}

/**
 * A connector that accepts the connection only when the server's certificate has the fingerprint
 * `pin` (checked once the handshake is done; sessions are not resumed, so every connection shows it).
 */
function pinned(pin: string, tls: { rejectUnauthorized: boolean; ca?: string }): buildConnector.connector {
  const base = buildConnector({ ...tls, maxCachedSessions: 0 });
  return (opts, callback) =>
    base(opts, (err, socket) => {
      if (err || !socket) return callback(err ?? new Error('no socket'), null);
      const got = (socket as TLSSocket).getPeerCertificate?.()?.fingerprint256 ?? '';
      if (got.toUpperCase() !== pin.toUpperCase()) {
        socket.destroy();
        return callback(new PinMismatch(got), null);
      }
      callback(null, socket);
    });
}

function describe(err: unknown): string {
  const e = err as Error & { code?: string; cause?: Error & { code?: string } };
  const cause = e.cause?.message ? `: ${e.cause.code ?? ''} ${e.cause.message}`.trim() : '';
  return `${e.code ? `${e.code} ` : ''}${e.message}${cause}`;
}
