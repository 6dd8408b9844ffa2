/**
 * A GET whose body the daemon passes on without reading it (core/filebody.ts sendPassedBody, the
 * relay's socket-to-socket splice): a plain HTTP/1.1 request on a connection of its own, the
 * answer's head parsed here, and the socket's reading then stopped with the body's first bytes in
 * hand. A pooled client (undici) cannot give its socket away, and every body byte it reads is
 * copied through its parser; this costs one connection per body, which only large bodies repay.
 * Plain http only: TLS bytes would have to be decrypted in Node anyway.
 */
import { connect, type LookupFunction, type Socket } from 'node:net';

/** A head larger than this is refused (Node's own limit is 16 KiB). */
const MAX_HEAD = 64 * 1024;

export interface RawAnswer {
  status: number;
  /** Lower-case names; a name given twice keeps its values joined with ", ". */
  headers: Map<string, string>;
  /** The body's length, or null when the answer gives none (or is chunked). */
  length: number | null;
  /** Connected, not read by Node any more, nothing buffered; the caller destroys it. */
  socket: Socket;
  /** The body's first bytes, read with the head. */
  head: Buffer;
}

/** The answer's head, or an error for a malformed one. */
function parseHead(text: string): { status: number; headers: Map<string, string>; length: number | null } {
  const lines = text.split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(lines[0] ?? '');
  if (!m) throw new Error('not an HTTP/1.1 answer');
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    // Folded lines and names with spaces are refused, as RFC 9112 asks of a recipient.
    if (colon <= 0 || /[\s]/.test(line.slice(0, colon))) throw new Error('malformed header line');
    const name = line.slice(0, colon).toLowerCase();
    const value = line.slice(colon + 1).trim();
    const had = headers.get(name);
    headers.set(name, had === undefined ? value : `${had}, ${value}`);
  }
  const status = Number(m[1]);
  let length: number | null = null;
  const cl = headers.get('content-length');
  if (cl !== undefined && !headers.has('transfer-encoding')) {
    // Repeated equal values ("5, 5") are one length; different ones are a smuggling attempt.
    const values = new Set(cl.split(',').map((v) => v.trim()));
    const only = values.size === 1 ? [...values][0]! : '';
    if (!/^\d{1,15}$/.test(only)) throw new Error('bad Content-Length');
    length = Number(only);
  }
  return { status, headers, length };
}

/**
 * Sends `GET url` with `headers` (Host and `Connection: close` added) and resolves with the
 * answer's head once it is in. Rejects when the server cannot be reached, closes before the head
 * ends, sends a malformed head, or says nothing within `timeoutMs`.
 */
export function rawGet(url: URL, headers: Record<string, string>, timeoutMs: number, lookup?: LookupFunction): Promise<RawAnswer> {
  if (url.protocol !== 'http:') return Promise.reject(new Error('rawGet speaks plain http only'));
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let got = 0;
    let done = false;
    const fail = (err: Error) => {
      if (done) return;
      done = true;
      socket.destroy();
      reject(err);
    };
    const socket: Socket = connect({
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: Number(url.port || 80),
      noDelay: true,
      ...(lookup ? { lookup } : {}),
      // Reads land in one buffer of ours, and returning false stops the handle reading at once:
      // after the head nothing more is read in Node, the relay takes the rest from the kernel.
      onread: {
        buffer: Buffer.allocUnsafe(16 * 1024),
        callback: (n: number, buf: Uint8Array): boolean => {
          if (done) return false;
          parts.push(Buffer.from(buf.subarray(0, n)));
          got += n;
          const all = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
          parts.length = 0;
          parts.push(all);
          const end = all.indexOf('\r\n\r\n');
          if (end < 0) {
            if (got > MAX_HEAD) fail(new Error('answer head too large'));
            return true;
          }
          let head: ReturnType<typeof parseHead>;
          try {
            head = parseHead(all.subarray(0, end).toString('latin1'));
          } catch (err) {
            fail(err as Error);
            return false;
          }
          // `fail` stays the error listener, doing nothing now: a later error must not be unhandled.
          done = true;
          socket.setTimeout(0);
          resolve({ ...head, socket, head: all.subarray(end + 4) });
          return false;
        },
      },
    });
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('connection closed before the answer')));
    socket.setTimeout(timeoutMs, () => fail(new Error('no answer in time')));
    const lines = [`GET ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), 'Connection: close', '', ''];
    socket.write(lines.join('\r\n'));
  });
}

/**
 * The bytes `start` to `end` of `url` by rawGet: the body left on its socket when the server
 * answered 206 (or 200 for a range from 0) with exactly that length; else the socket is closed
 * and the status said (`body` null with a status of 200 or 206: no usable length, read it another
 * way).
 */
export async function rawGetRange(
  url: URL,
  headers: Record<string, string>,
  range: { start: number; end: number },
  timeoutMs: number,
  lookup?: LookupFunction,
): Promise<{ status: number; body: { socket: Socket; head: Buffer } | null }> {
  const a = await rawGet(url, { ...headers, range: `bytes=${range.start}-${range.end}` }, timeoutMs, lookup);
  const ok = a.status === 206 || (a.status === 200 && range.start === 0);
  if (ok && a.length === range.end - range.start + 1 && a.head.length <= a.length) return { status: a.status, body: { socket: a.socket, head: a.head } };
  a.socket.destroy();
  return { status: a.status, body: null };
}
