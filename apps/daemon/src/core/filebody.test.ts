// File bodies over HTTP/1.1 (core/filebody.ts) on a plain node:http server, with curl and raw
// sockets on loopback: large files by sendfile on keep-alive connections (several requests on one
// connection, ranges, HEAD, pipelined requests), a client that goes away or stops reading (the
// connection cut, the file closed, nothing left on the relay), a file shorter than promised (cut,
// never half-written), and the streamed way when the relay is off.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readlinkSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesWrittenOf, sendFileBody, type FileBodyOptions, type FileBodyResult } from './filebody.js';
import { nativeFileTransfers, nativeRelayAvailable } from './relay.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function curl(args: string[]): Promise<{ out: Buffer; err: string; code: number }> {
  return new Promise((resolve) => {
    execFile('curl', ['-s', ...args], { encoding: 'buffer', maxBuffer: 256 << 20, timeout: 60_000 }, (e, stdout, stderr) =>
      resolve({ out: stdout, err: stderr.toString(), code: e ? ((e as { code?: number }).code ?? 1) : 0 }),
    );
  });
}

/** Descriptors of this process open on files under `dir`. */
function openUnder(dir: string): string[] {
  const out: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(dir)) out.push(target);
    } catch {
      /* closed meanwhile */
    }
  }
  return out;
}

async function until(what: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A file server of the smallest kind: GET/HEAD /<name>, a Range of one span, `?claim=N` to promise N
 * bytes whatever the file holds. Every body through sendFileBody.
 */
function fileServer(dir: string, o: FileBodyOptions): { server: Server; results: FileBodyResult[]; sockets: Set<Socket> } {
  const results: FileBodyResult[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      let file;
      try {
        file = await open(join(dir, url.pathname.slice(1)), 'r');
      } catch {
        res.writeHead(404, { 'content-length': 0 }).end();
        return;
      }
      const size = Number(url.searchParams.get('claim') ?? (await file.stat()).size);
      let start = 0;
      let last = size - 1;
      const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
      if (m) {
        start = Number(m[1]);
        last = m[2] ? Math.min(Number(m[2]), size - 1) : size - 1;
      }
      res.writeHead(m ? 206 : 200, { 'content-type': 'application/octet-stream', 'content-length': last - start + 1, ...(m ? { 'content-range': `bytes ${start}-${last}/${size}` } : {}) });
      results.push(await sendFileBody(req, res, file, start, last - start + 1, o));
    })();
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return { server, results, sockets };
}

/** Raw HTTP/1.1 responses with a Content-Length, parsed off one connection until `n` came; `heads[i]`: the i-th answers a HEAD. */
function readResponses(sock: Socket, n: number, heads: boolean[] = []): Promise<Array<{ head: string; body: Buffer }>> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let have = 0;
    // Bytes the current response needs before it can be taken (its head first, then its body).
    let need = 0;
    const out: Array<{ head: string; body: Buffer }> = [];
    sock.on('data', (c: Buffer) => {
      parts.push(c);
      have += c.length;
      while (have >= need && out.length < n) {
        const buf = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
        parts.length = 0;
        parts.push(buf);
        const i = buf.indexOf('\r\n\r\n');
        if (i < 0) {
          need = have + 1;
          return;
        }
        const head = buf.subarray(0, i).toString('latin1');
        const len = heads[out.length] ? 0 : Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        need = i + 4 + len;
        if (have < need) return;
        out.push({ head, body: buf.subarray(i + 4, need) });
        parts[0] = buf.subarray(need);
        have -= need;
        need = 0;
      }
      if (out.length === n) resolve(out);
    });
    sock.on('error', reject);
  });
}

const PATHS = [
  { name: 'sendfile', o: { native: true, idleMs: 1500 } },
  { name: 'streamed (relay off)', o: { native: false } },
] as const;

describe.each(PATHS)('file bodies over HTTP/1.1: $name', ({ name, o }) => {
  const native = name === 'sendfile';
  let dir: string;
  let big: Buffer;
  let other: Buffer;
  let srv: ReturnType<typeof fileServer>;
  let base: string;

  beforeAll(async () => {
    if (native) expect(nativeRelayAvailable()).toBe(true);
    dir = mkdtempSync(join(tmpdir(), 'lucky-filebody-'));
    big = randomBytes(24 << 20);
    other = randomBytes((3 << 20) + 12345);
    writeFileSync(join(dir, 'big.bin'), big);
    writeFileSync(join(dir, 'other.bin'), other);
    writeFileSync(join(dir, 'huge.bin'), Buffer.alloc(256 << 20, 7));
    writeFileSync(join(dir, 'small.txt'), 'hello\n');
    srv = fileServer(dir, o);
    await new Promise<void>((r) => srv.server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(srv.server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    srv.server.closeAllConnections();
    await new Promise((r) => srv.server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves several large files and ranges on one keep-alive connection, byte for byte', async () => {
    const before = nativeFileTransfers().started;
    const out = join(dir, 'out');
    // --next keeps the connection and gives each URL its own options (the range is the second's only).
    const w = ['-w', '%{http_code} %{num_connects} %{size_download}\\n'];
    const r = await curl([
      ...w, '-o', `${out}1`, `${base}/big.bin`, '--next',
      ...w, '-o', `${out}2`, '-r', '1000-2999999', `${base}/other.bin`, '--next',
      ...w, '-o', `${out}3`, `${base}/small.txt`, '--next',
      ...w, '-o', `${out}4`, `${base}/big.bin`,
    ]);
    expect(r.code).toBe(0);
    // One connect for the four transfers: the connection was kept after each sendfile.
    expect(r.out.toString().trim().split('\n')).toEqual([`200 1 ${big.length}`, `206 0 2999000`, '200 0 6', `200 0 ${big.length}`]);
    expect(sha(readFileSync(`${out}1`))).toBe(sha(big));
    expect(sha(readFileSync(`${out}2`))).toBe(sha(other.subarray(1000, 3_000_000)));
    expect(readFileSync(`${out}3`, 'utf8')).toBe('hello\n');
    expect(sha(readFileSync(`${out}4`))).toBe(sha(big));
    // Three bodies large enough for sendfile (the 6-byte one is written by Node).
    expect(nativeFileTransfers().started - before).toBe(native ? 3 : 0);
    await until(() => openUnder(dir).length === 0);
  });

  it('answers HEAD with the length and no body, and goes on on the same connection', async () => {
    const r = await curl(['-I', '-w', '%{num_connects}\\n', `${base}/big.bin`, '--next', '-o', '/dev/null', '-w', '%{http_code} %{num_connects} %{size_download}\\n', `${base}/big.bin`]);
    expect(r.code).toBe(0);
    const text = r.out.toString();
    expect(text).toMatch(new RegExp(`content-length: ${big.length}`, 'i'));
    expect(text).toMatch(new RegExp(`200 0 ${big.length}`));
  });

  it('answers pipelined requests in order, the ones Node read during a sendfile included', async () => {
    const sock = connect(Number(new URL(base).port), '127.0.0.1');
    await new Promise((r) => sock.once('connect', r));
    const got = readResponses(sock, 4, [false, true, false, false]);
    const req = (m: string, p: string, extra = '') => `${m} ${p} HTTP/1.1\r\nHost: x\r\n${extra}\r\n`;
    // All four in one write: Node parses them while the first answer is still going out.
    sock.write(req('GET', '/big.bin') + req('HEAD', '/other.bin') + req('GET', '/other.bin', 'Range: bytes=5-\r\n') + req('GET', '/small.txt'));
    const [a, b, c, d] = await got;
    expect(a!.head).toMatch(/^HTTP\/1.1 200/);
    expect(sha(a!.body)).toBe(sha(big));
    expect(b!.head).toMatch(new RegExp(`content-length: ${other.length}`, 'i'));
    expect(c!.head).toMatch(/^HTTP\/1.1 206/);
    expect(sha(c!.body)).toBe(sha(other.subarray(5)));
    expect(d!.body.toString()).toBe('hello\n');
    sock.destroy();
  });

  it('cuts the connection of a client that goes away mid-transfer, and closes the file', async () => {
    const before = srv.results.length;
    const sock = connect({ port: Number(new URL(base).port), host: '127.0.0.1' });
    await new Promise((r) => sock.once('connect', r));
    sock.write('GET /huge.bin HTTP/1.1\r\nHost: x\r\n\r\n');
    let n = 0;
    await new Promise<void>((resolve) => {
      sock.on('data', (c: Buffer) => {
        n += c.length;
        if (n > 4 << 20) resolve();
      });
    });
    sock.destroy();
    await until(() => srv.results.length > before);
    expect(srv.results.at(-1)!.complete).toBe(false);
    await until(() => openUnder(dir).length === 0 && srv.sockets.size === 0 && (!native || nativeFileTransfers().active === 0));
  });

  it('closes the files of pipelined answers still waiting when their client goes', async () => {
    const sock = connect(Number(new URL(base).port), '127.0.0.1');
    sock.on('error', () => undefined);
    await new Promise((r) => sock.once('connect', r));
    const req = 'GET /huge.bin HTTP/1.1\r\nHost: x\r\n\r\n';
    sock.write(req + req + req);
    let n = 0;
    await new Promise<void>((resolve) =>
      sock.on('data', (c: Buffer) => {
        n += c.length;
        if (n > 4 << 20) resolve();
      }),
    );
    // The two behind the first have opened their file by now, and wait.
    await until(() => openUnder(dir).length === 3);
    sock.destroy();
    await until(() => openUnder(dir).length === 0 && srv.sockets.size === 0 && (!native || nativeFileTransfers().active === 0));
  });

  it('cuts a client that stops reading once idle, and closes the file', async () => {
    if (!native) return; // the streamed way has no idle limit of its own (Node's socket timeouts apply)
    const before = srv.results.length;
    const sock = connect({ port: Number(new URL(base).port), host: '127.0.0.1' });
    await new Promise((r) => sock.once('connect', r));
    sock.write('GET /huge.bin HTTP/1.1\r\nHost: x\r\n\r\n');
    sock.pause(); // reads nothing: the socket buffers fill and sendfile waits
    await until(() => srv.results.length > before, 15_000);
    expect(srv.results.at(-1)!.complete).toBe(false);
    await until(() => openUnder(dir).length === 0 && nativeFileTransfers().active === 0);
    sock.destroy();
  });

  it('takes the socket back from the relay when the server closes its connections mid-transfer', async () => {
    const before = srv.results.length;
    const startedBefore = nativeFileTransfers().started;
    const sock = connect({ port: Number(new URL(base).port), host: '127.0.0.1' });
    await new Promise((r) => sock.once('connect', r));
    sock.on('error', () => undefined);
    sock.write('GET /huge.bin HTTP/1.1\r\nHost: x\r\n\r\n');
    sock.pause();
    // The count of starts, not of active transfers: on a loaded machine the relay's idle limit can
    // end the transfer before a poll of `active` sees it, and the test would wait for nothing.
    if (native) await until(() => nativeFileTransfers().started > startedBefore);
    await new Promise((r) => setTimeout(r, 200));
    // What a rule's stop does: every connection destroyed, this one while its body is on the relay.
    srv.server.closeAllConnections();
    await until(() => srv.results.length > before);
    expect(srv.results.at(-1)!.complete).toBe(false);
    await until(() => openUnder(dir).length === 0 && srv.sockets.size === 0 && nativeFileTransfers().active === 0);
    sock.destroy();
  });

  it('never leaves a body half-written: a file shorter than its Content-Length cuts the connection', async () => {
    const r = await curl(['-o', '/dev/null', '-w', '%{http_code} %{size_download}', `${base}/other.bin?claim=${other.length + 100_000}`]);
    // curl: 18, the transfer closed with bytes still to come.
    expect(r.code).toBe(18);
    expect(r.out.toString()).toBe(`200 ${other.length}`);
    await until(() => openUnder(dir).length === 0);
  });

  it('counts the body in what the connection wrote (figures and access logs read it)', async () => {
    const sock = connect(Number(new URL(base).port), '127.0.0.1');
    await new Promise((r) => sock.once('connect', r));
    const got = readResponses(sock, 1);
    sock.write('GET /other.bin HTTP/1.1\r\nHost: x\r\n\r\n');
    const [a] = await got;
    const accepted = [...srv.sockets].find((s) => s.remotePort === sock.localPort)!;
    expect(sha(a!.body)).toBe(sha(other));
    // The client can hold the last byte before the relay thread's completion reaches JavaScript.
    await until(() => bytesWrittenOf(accepted) > other.length);
    expect(bytesWrittenOf(accepted)).toBeLessThan(other.length + 300);
    sock.destroy();
  });
});
