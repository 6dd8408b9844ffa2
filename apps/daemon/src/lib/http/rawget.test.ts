// rawGet / rawGetRange against a server on loopback that answers with raw bytes: the head parsed,
// the body's first bytes in hand and the rest left unread on the socket, and every answer that
// cannot be passed on as it is (chunked, a length not asked, two lengths, a head too large or cut
// short, silence) refused or left to the caller's ordinary read.
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawGet, rawGetRange } from './rawget.js';

describe('rawGet', () => {
  let server: Server;
  let url: URL;
  /** What the server answers next, and the request it saw. */
  let answer: (s: Socket) => void = () => undefined;
  let seen = '';

  beforeAll(async () => {
    server = createServer((s) => {
      s.on('error', () => undefined);
      s.once('data', (d) => {
        seen = d.toString('latin1');
        answer(s);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = new URL(`http://127.0.0.1:${(server.address() as { port: number }).port}/a%20b/c.bin?x=1`);
  });
  afterAll(() => server.close());

  it('sends the request with its headers and leaves the body after the first bytes on the socket', async () => {
    answer = (s) => {
      s.write('HTTP/1.1 206 Partial Content\r\nContent-Length: 10\r\nContent-Range: bytes 5-14/100\r\n\r\n0123');
      setTimeout(() => s.end('456789'), 50);
    };
    const a = await rawGetRange(url, { authorization: 'Basic eDp5' }, { start: 5, end: 14 }, 5000);
    expect(seen).toMatch(/^GET \/a%20b\/c\.bin\?x=1 HTTP\/1\.1\r\nHost: 127\.0\.0\.1:\d+\r\n/);
    expect(seen).toContain('authorization: Basic eDp5\r\n');
    expect(seen).toContain('range: bytes=5-14\r\n');
    expect(seen).toContain('Connection: close\r\n\r\n');
    expect(a.status).toBe(206);
    expect(a.body!.head.toString()).toBe('0123');
    // Nothing more is read in Node once the rest has come: it stays the kernel's, for the relay
    // (whose pass of it the WebDAV and FTP remote tests check).
    const headBytes = a.body!.socket.bytesRead;
    await new Promise((r) => setTimeout(r, 150));
    expect(a.body!.socket.bytesRead).toBe(headBytes);
    a.body!.socket.destroy();
  });

  it('leaves to the ordinary read an answer it cannot pass as it is', async () => {
    // Chunked: framing inside the body.
    answer = (s) => s.end('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n4\r\nabcd\r\n0\r\n\r\n');
    expect(await rawGetRange(url, {}, { start: 0, end: 3 }, 5000)).toEqual({ status: 200, body: null });
    // Another length than asked (the file changed), and a 200 for a range not from 0.
    answer = (s) => s.end('HTTP/1.1 206 Partial Content\r\nContent-Length: 3\r\n\r\nabc');
    expect(await rawGetRange(url, {}, { start: 0, end: 3 }, 5000)).toEqual({ status: 206, body: null });
    answer = (s) => s.end('HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nabcd');
    expect(await rawGetRange(url, {}, { start: 1, end: 4 }, 5000)).toEqual({ status: 200, body: null });
    answer = (s) => s.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
    expect(await rawGetRange(url, {}, { start: 0, end: 3 }, 5000)).toEqual({ status: 404, body: null });
    // Repeated equal lengths are one.
    answer = (s) => s.end('HTTP/1.1 200 OK\r\nContent-Length: 4\r\ncontent-length: 4\r\n\r\nabcd');
    expect((await rawGetRange(url, {}, { start: 0, end: 3 }, 5000)).body?.head.toString()).toBe('abcd');
  });

  it('refuses a malformed, oversized, cut or missing answer', async () => {
    const refused = (raw: string | ((s: Socket) => void), ms = 5000) => {
      answer = typeof raw === 'string' ? (s) => s.end(raw) : raw;
      return rawGet(url, {}, ms).then(
        (a) => {
          a.socket.destroy();
          return 'taken';
        },
        (e: Error) => e.message,
      );
    };
    expect(await refused('HTTP/1.1 200 OK\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\nabcd')).toBe('bad Content-Length');
    expect(await refused('HTTP/1.1 200 OK\r\nContent-Length: -4\r\n\r\n')).toBe('bad Content-Length');
    expect(await refused('HTTP/1.1 200 OK\r\nX-A: 1\r\n folded\r\n\r\n')).toBe('malformed header line');
    expect(await refused('ICY 200 OK\r\n\r\n')).toBe('not an HTTP/1.1 answer');
    expect(await refused(`HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(70 * 1024)}`)).toBe('answer head too large');
    expect(await refused('HTTP/1.1 200 OK\r\nContent-Le')).toBe('connection closed before the answer');
    expect(await refused(() => undefined, 200)).toBe('no answer in time');
    await expect(rawGet(new URL('https://127.0.0.1/'), {}, 1000)).rejects.toThrow(/plain http only/);
  });
});
