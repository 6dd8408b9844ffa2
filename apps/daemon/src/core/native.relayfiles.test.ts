// The relay thread's file transfers (native/relay_filemove.c: fileSend with sendfile, fileReceive with splice)
// and socket passes (native/relay_pass.c: a body of known length from one socket to another)
// through their Node wrappers, over real loopback sockets: the bytes, the ends (done, limit, idle,
// error), remove() taking a transfer back, sockets Node is still reading refused, and a send on a
// socket Node keeps (keepOpen: no half-close, the relay's own duplicate of the descriptor).
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeFileReceive, nativeFileSend, nativeFileSendOn, nativeFileTransfers, nativePass, nativeRelayAvailable, type NativeEnd } from './relay.js';

const tcpFdOf = (s: Socket) => (s as unknown as { _handle: { fd: number } })._handle.fd;

/** A connected pair: `server` accepted with pauseOnConnect (never read by Node), `client` ours. */
async function pair(server: Server): Promise<{ server: Socket; client: Socket }> {
  const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
  const client = connect((server.address() as { port: number }).port, '127.0.0.1');
  client.on('error', () => undefined);
  const s = await accepted;
  s.on('error', () => undefined);
  return { server: s, client };
}

function collect(s: Socket): Promise<Buffer> {
  const parts: Buffer[] = [];
  s.on('data', (c: Buffer) => parts.push(c));
  return new Promise((resolve) => s.once('close', () => resolve(Buffer.concat(parts))));
}

function ended(): { onEnd: (e: NativeEnd) => void; end: Promise<NativeEnd> } {
  let onEnd!: (e: NativeEnd) => void;
  const end = new Promise<NativeEnd>((r) => (onEnd = r));
  return { onEnd, end };
}

describe('native file send / receive', () => {
  let server: Server;
  let dir: string;

  beforeAll(async () => {
    // Built by `npm run build` on Linux: its absence is a failure here, not a skip.
    expect(nativeRelayAvailable()).toBe(true);
    dir = mkdtempSync(join(tmpdir(), 'lucky-relay-files-'));
    server = createServer({ pauseOnConnect: true });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterAll(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends a file from an offset to its end, then half-closes the socket', async () => {
    const data = randomBytes(5 * 1024 * 1024 + 17);
    writeFileSync(join(dir, 'send.bin'), data);
    const fd = openSync(join(dir, 'send.bin'), 'r');
    const { server: s, client } = await pair(server);
    const got = collect(client);
    const e = ended();
    const flow = nativeFileSend(s, fd, 1000, 0, e.onEnd);
    expect(flow).not.toBeNull();
    expect(await e.end).toEqual({ reason: 'closed', errno: 0 });
    expect(flow!.counters()).toMatchObject({ toClient: data.length - 1000, toTarget: 0 });
    s.destroy();
    closeSync(fd);
    expect((await got).equals(data.subarray(1000))).toBe(true);
  });

  it('sends a range on a socket Node keeps (keepOpen): no half-close, Node writes on after it', async () => {
    const data = randomBytes(4 * 1024 * 1024 + 3);
    writeFileSync(join(dir, 'keep.bin'), data);
    const fd = openSync(join(dir, 'keep.bin'), 'r');
    const { server: s, client } = await pair(server);
    const got = collect(client);
    const sent = new Promise<[NativeEnd, number]>((resolve) => {
      expect(nativeFileSendOn(tcpFdOf(s), fd, 10, data.length - 20, 0, (e, n) => resolve([e, n]))).not.toBeNull();
    });
    expect(await sent).toEqual([{ reason: 'closed', errno: 0 }, data.length - 20]);
    closeSync(fd);
    // The connection is still open both ways: Node's next bytes follow the file's.
    s.end('tail');
    expect((await got).equals(Buffer.concat([data.subarray(10, data.length - 10), Buffer.from('tail')]))).toBe(true);
  });

  it('keeps sending on its own descriptor when Node destroys the socket, until taken back', async () => {
    const data = randomBytes(64 * 1024 * 1024);
    writeFileSync(join(dir, 'keep2.bin'), data);
    const fd = openSync(join(dir, 'keep2.bin'), 'r');
    const { server: s, client } = await pair(server);
    client.pause();
    const flow = nativeFileSendOn(tcpFdOf(s), fd, 0, data.length, 0, () => undefined)!;
    await new Promise((r) => setTimeout(r, 100));
    // Node closes its descriptor: the number may be reused at once, the relay's duplicate is not.
    s.destroy();
    await new Promise((r) => s.once('close', r));
    const reused = openSync(join(dir, 'keep2.bin'), 'r');
    const clientClosed = new Promise((r) => client.once('close', r));
    client.on('error', () => undefined);
    client.resume();
    await new Promise((r) => setTimeout(r, 100));
    expect(flow.counters().toClient).toBeGreaterThan(0);
    // Taken back: the duplicate closes, and the connection with it.
    flow.remove();
    await clientClosed;
    closeSync(reused);
    closeSync(fd);
  });

  it('writes what arrives into a file at an offset until EOF, leaving the bytes before it', async () => {
    const path = join(dir, 'recv.bin');
    writeFileSync(path, Buffer.alloc(100, 1));
    const fd = openSync(path, 'r+');
    const { server: s, client } = await pair(server);
    const e = ended();
    const flow = nativeFileReceive(s, fd, 100, -1, 0, e.onEnd);
    expect(flow).not.toBeNull();
    const data = randomBytes(3 * 1024 * 1024 + 5);
    client.end(data);
    expect(await e.end).toEqual({ reason: 'closed', errno: 0 });
    expect(flow!.counters().toTarget).toBe(data.length);
    s.destroy();
    closeSync(fd);
    const file = readFileSync(path);
    expect(file.length).toBe(100 + data.length);
    expect(file.subarray(0, 100).equals(Buffer.alloc(100, 1))).toBe(true);
    expect(file.subarray(100).equals(data)).toBe(true);
  });

  it('ends with limit once more than the limit arrived, writing nothing past it', async () => {
    const path = join(dir, 'limit.bin');
    const fd = openSync(path, 'w');
    const { server: s, client } = await pair(server);
    const e = ended();
    const limit = 1_000_000;
    const flow = nativeFileReceive(s, fd, 0, limit, 0, e.onEnd);
    client.write(randomBytes(3 * 1024 * 1024));
    expect(await e.end).toEqual({ reason: 'limit', errno: 0 });
    const written = flow!.counters().toTarget;
    s.destroy();
    closeSync(fd);
    expect(written).toBeLessThanOrEqual(limit);
    expect(readFileSync(path).length).toBe(written);
  });

  it('takes a transfer back at once with remove(): no end follows, the counts are final', async () => {
    const data = randomBytes(64 * 1024 * 1024);
    writeFileSync(join(dir, 'big.bin'), data);
    const fd = openSync(join(dir, 'big.bin'), 'r');
    const { server: s, client } = await pair(server);
    // The client reads nothing: the transfer stalls once the socket buffers are full.
    client.pause();
    const before = nativeFileTransfers();
    let endCame = false;
    const flow = nativeFileSend(s, fd, 0, 0, () => (endCame = true))!;
    expect(nativeFileTransfers()).toEqual({ started: before.started + 1, active: before.active + 1 });
    await new Promise((r) => setTimeout(r, 200));
    const moved = flow.remove();
    expect(moved.toClient).toBeGreaterThan(0);
    expect(moved.toClient).toBeLessThan(data.length);
    expect(nativeFileTransfers().active).toBe(before.active);
    // Safe now: the relay no longer uses either descriptor.
    s.destroy();
    closeSync(fd);
    client.destroy();
    await new Promise((r) => setTimeout(r, 200));
    expect(endCame).toBe(false);
  });

  it('ends an idle receive after its idle time, and a send to a peer that reset with an error', async () => {
    const fd = openSync(join(dir, 'idle.bin'), 'w');
    const idle = await pair(server);
    const e = ended();
    const t0 = Date.now();
    nativeFileReceive(idle.server, fd, 0, -1, 300, e.onEnd);
    expect(await e.end).toEqual({ reason: 'idle', errno: 0 });
    // The sweep runs once a second.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
    expect(Date.now() - t0).toBeLessThan(2500);
    idle.server.destroy();
    idle.client.destroy();
    closeSync(fd);

    writeFileSync(join(dir, 'reset.bin'), randomBytes(32 * 1024 * 1024));
    const rfd = openSync(join(dir, 'reset.bin'), 'r');
    const r = await pair(server);
    r.client.resetAndDestroy();
    await new Promise((res) => setTimeout(res, 50));
    const re = ended();
    nativeFileSend(r.server, rfd, 0, 0, re.onEnd);
    const end = await re.end;
    expect(end.reason).toBe('error');
    expect([constants.errno.EPIPE, constants.errno.ECONNRESET]).toContain(end.errno);
    r.server.destroy();
    closeSync(rfd);
  });

  it('refuses a socket Node reads (the relay and libuv would race for its bytes)', async () => {
    const fd = openSync(join(dir, 'refused.bin'), 'w');
    const { server: s, client } = await pair(server);
    s.resume();
    s.on('data', () => undefined);
    await new Promise((r) => setTimeout(r, 20));
    expect(nativeFileReceive(s, fd, 0, -1, 0, () => undefined)).toBeNull();
    s.destroy();
    client.destroy();
    closeSync(fd);
  });
});

describe('native socket pass', () => {
  let server: Server;

  beforeAll(async () => {
    expect(nativeRelayAvailable()).toBe(true);
    server = createServer({ pauseOnConnect: true });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterAll(() => server.close());

  /** A source pair and a destination pair: bytes written on `far` arrive on `src`; `dst` delivers to `near`. */
  async function ends() {
    const a = await pair(server);
    const b = await pair(server);
    return { far: a.client, src: a.server, dst: b.server, near: b.client };
  }

  it('passes exactly the length and leaves what follows on the source; both connections go on', async () => {
    const { far, src, dst, near } = await ends();
    const body = randomBytes(9 * 1024 * 1024 + 5);
    far.write(Buffer.concat([body, Buffer.from('NEXT')]));
    const parts: Buffer[] = [];
    near.on('data', (c: Buffer) => parts.push(c));
    const done = await new Promise<[NativeEnd, number]>((resolve) => {
      expect(nativePass(tcpFdOf(src), tcpFdOf(dst), body.length, 0, (e, n) => resolve([e, n]))).not.toBeNull();
    });
    expect(done).toEqual([{ reason: 'closed', errno: 0 }, body.length]);
    // Node reads on where the relay stopped, and writes on after the body.
    src.resume();
    const rest = await new Promise<Buffer>((resolve) => src.once('data', resolve));
    expect(rest.toString()).toBe('NEXT');
    dst.end('tail');
    await new Promise((r) => near.once('end', r));
    expect(Buffer.concat(parts).equals(Buffer.concat([body, Buffer.from('tail')]))).toBe(true);
    far.destroy();
  });

  it('ends when the source closes early, having passed what came', async () => {
    const { far, src, dst, near } = await ends();
    const got = collect(near);
    far.end(Buffer.alloc(300_000, 3));
    const done = await new Promise<[NativeEnd, number]>((resolve) => nativePass(tcpFdOf(src), tcpFdOf(dst), 1_000_000, 0, (e, n) => resolve([e, n])));
    expect(done).toEqual([{ reason: 'closed', errno: 0 }, 300_000]);
    dst.destroy();
    expect((await got).length).toBe(300_000);
    src.destroy();
  });

  it('is taken back at once with remove() while the client does not read, and ends idle ones', async () => {
    const { far, src, dst, near } = await ends();
    near.pause();
    far.write(Buffer.alloc(32 << 20, 1));
    const flow = nativePass(tcpFdOf(src), tcpFdOf(dst), 32 << 20, 0, () => {
      throw new Error('no end after remove()');
    })!;
    await new Promise((r) => setTimeout(r, 200));
    const moved = flow.remove();
    expect(moved.toClient).toBeGreaterThan(0);
    expect(moved.toClient).toBeLessThan(32 << 20);
    // An idle limit ends a pass whose client stopped reading.
    const idle = await new Promise<NativeEnd>((resolve) => nativePass(tcpFdOf(src), tcpFdOf(dst), 32 << 20, 300, (e) => resolve(e)));
    expect(idle.reason).toBe('idle');
    for (const s of [far, src, dst, near]) s.destroy();
  });
});
