import { randomBytes } from 'node:crypto';
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MsgError } from '../../lib/msgerror.js';
import { startCoturn, type Coturn } from '../../test/coturn.js';
import { resolveStunServer, tcpBinding, UdpStunClient, type StunServer } from './stun.client.js';
import { decodeStun, encodeStun, type StunAttrs } from './stun.message.js';
import { natBehaviourTest } from './stun.natcheck.js';

function udp(host = '127.0.0.1'): Promise<Socket> {
  const s = createSocket('udp4');
  return new Promise((resolve) => s.bind(0, host, () => resolve(s)));
}

function keyOf(err: unknown): string | undefined {
  return err instanceof MsgError ? err.msg.key : undefined;
}

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

/** The engine's arrangement: one socket, STUN answers taken by the client, everything else forwarded. */
async function sharedSocket(opts?: ConstructorParameters<typeof UdpStunClient>[1]) {
  const socket = await udp();
  const forwarded: Buffer[] = [];
  const client = new UdpStunClient((buf, port, address) => socket.send(buf, port, address), opts);
  socket.on('message', (m, r) => {
    if (!client.offer(m, r)) forwarded.push(m);
  });
  return { socket, client, forwarded, port: socket.address().port };
}

/**
 * A server of our own for answers coturn will not give: `answer` gets each request and says what to
 * send back (nothing, raw bytes, or attributes of a success/error answer).
 */
async function fakeServer(answer: (req: ReturnType<typeof decodeStun>, n: number) => Buffer[] | null) {
  const s = await udp();
  let n = 0;
  s.on('message', (m: Buffer, r: RemoteInfo) => {
    const req = decodeStun(m);
    for (const b of answer(req, n++) ?? []) s.send(b, r.port, r.address);
  });
  const server: StunServer = { address: '127.0.0.1', port: s.address().port, label: `fake:${s.address().port}` };
  return { server, requests: () => n, close: () => s.close() };
}

const success = (req: ReturnType<typeof decodeStun>, attrs: StunAttrs, cls: 'success' | 'error' = 'success') =>
  encodeStun({ cls, transactionId: req.transactionId, attrs, fingerprint: true });

describe('STUN client against coturn', () => {
  let coturn: Coturn;
  let server: StunServer;

  beforeAll(async () => {
    coturn = await startCoturn({ listen: ['127.0.0.1', '127.0.0.2'] });
    server = { address: '127.0.0.1', port: coturn.port, label: `127.0.0.1:${coturn.port}` };
  });
  afterAll(async () => {
    await coturn?.stop();
  });

  it('binds through a shared socket and leaves other datagrams alone', async () => {
    const { socket, client, forwarded, port } = await sharedSocket();
    const other = await udp();
    try {
      const stray = encodeStun({ cls: 'success', transactionId: randomBytes(12), attrs: { xorMappedAddress: { address: '1.2.3.4', port: 5 } } });
      const sends = ['hello', 'world'].map((t) => Buffer.from(t));
      const pending = client.binding(server, { timeoutMs: 3000 });
      for (const b of [...sends, stray]) other.send(b, port, '127.0.0.1');
      const r = await pending;
      expect(r.mapped).toEqual({ address: '127.0.0.1', port });
      expect(r.server).toBe(server.label);
      expect(r.from).toEqual({ address: '127.0.0.1', port: coturn.port });
      // coturn with two addresses answers RFC 5780: where it answered from, and its other address.
      expect(r.responseOrigin).toEqual({ address: '127.0.0.1', port: coturn.port });
      expect(r.otherAddress).toEqual({ address: '127.0.0.2', port: coturn.port + 1 });
      await new Promise((res) => setTimeout(res, 100));
      // The user datagrams, and a STUN answer to a transaction we never started, go to the owner.
      expect(forwarded.map((b) => b.toString('hex')).sort()).toEqual([...sends, stray].map((b) => b.toString('hex')).sort());
    } finally {
      client.close();
      socket.close();
      other.close();
    }
  });

  it('honours CHANGE-REQUEST: the answer comes from the other address and port', async () => {
    const { socket, client } = await sharedSocket();
    try {
      const both = await client.binding(server, { timeoutMs: 3000, changeIp: true, changePort: true });
      expect(both.from).toEqual({ address: '127.0.0.2', port: coturn.port + 1 });
      const portOnly = await client.binding(server, { timeoutMs: 3000, changePort: true });
      expect(portOnly.from).toEqual({ address: '127.0.0.1', port: coturn.port + 1 });
      const ipOnly = await client.binding(server, { timeoutMs: 3000, changeIp: true });
      expect(ipOnly.from).toEqual({ address: '127.0.0.2', port: coturn.port });
    } finally {
      client.close();
      socket.close();
    }
  });

  it('binds over TCP on a connected socket', async () => {
    const sock = net.connect(coturn.port, '127.0.0.1');
    await new Promise<void>((res, rej) => sock.once('connect', res).once('error', rej));
    try {
      const r = await tcpBinding(sock, server.label, 3000);
      expect(r.mapped).toEqual({ address: '127.0.0.1', port: sock.localPort });
      expect(r.from).toEqual({ address: '127.0.0.1', port: coturn.port });
      // The socket stays usable: a second transaction on it.
      const again = await tcpBinding(sock, server.label, 3000);
      expect(again.mapped.port).toBe(sock.localPort);
    } finally {
      sock.destroy();
    }
  });

  it('natBehaviourTest on loopback: no NAT, open', async () => {
    const t0 = Date.now();
    const r = await natBehaviourTest({ server, localHost: '127.0.0.1', timeoutMs: 1500 });
    expect(Date.now() - t0).toBeLessThan(6000);
    expect(r.publicAddr).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(r.mapping).toBe('endpointIndependent');
    expect(r.filtering).toBe('endpointIndependent');
    expect(r.verdict).toEqual({ key: 'stunVerdictOpen' });
    expect(r.steps.map((s) => s.key)).toEqual(['stunTestBinding', 'stunTestNoNat', 'stunTestMapping', 'stunTestFiltering']);
    expect(r.steps[3]).toEqual({ key: 'stunTestFiltering', vars: { behaviour: { key: 'natEndpointIndependent' } } });
  });

  it('natBehaviourTest from the wildcard address still finds no NAT on loopback', async () => {
    const r = await natBehaviourTest({ server, timeoutMs: 1500 });
    expect(r.verdict).toEqual({ key: 'stunVerdictOpen' });
    expect(r.steps.map((s) => s.key)).toContain('stunTestNoNat');
  });
});

describe('STUN client against servers that misbehave', () => {
  it('a server that never answers: stunTimeout within the bound, with RFC 8489 retransmissions', async () => {
    const silent = await udp();
    let got = 0;
    silent.on('message', () => got++);
    const { socket, client } = await sharedSocket({ rtoMs: 50, maxTransmits: 4 });
    try {
      const t0 = Date.now();
      const err = await failure(client.binding({ address: '127.0.0.1', port: silent.address().port, label: 'silent' }, { timeoutMs: 600 }));
      const took = Date.now() - t0;
      expect(keyOf(err)).toBe('stunTimeout');
      expect((err as MsgError).msg.vars).toEqual({ seconds: 0.6 });
      expect(took).toBeGreaterThanOrEqual(590);
      expect(took).toBeLessThan(1500);
      // Sent at 0, 50, 150 and 350 ms: the count is bounded even with time left.
      expect(got).toBe(4);
    } finally {
      client.close();
      socket.close();
      silent.close();
    }
  });

  it('garbage and broken answers are ignored; the real answer still counts', async () => {
    const fake = await fakeServer((req) => {
      const good = success(req, { xorMappedAddress: { address: '198.51.100.9', port: 4242 } });
      const broken = Buffer.from(good);
      broken[broken.length - 1] = broken[broken.length - 1]! ^ 0xff; // its FINGERPRINT no longer matches
      return [randomBytes(37), broken, good];
    });
    const { socket, client, forwarded } = await sharedSocket();
    try {
      const r = await client.binding(fake.server, { timeoutMs: 2000 });
      expect(r.mapped).toEqual({ address: '198.51.100.9', port: 4242 });
      await new Promise((res) => setTimeout(res, 50));
      // Random bytes are not STUN: the owner gets them. The broken answer carried our transaction id: swallowed.
      expect(forwarded).toHaveLength(1);
      expect(forwarded[0]!.length).toBe(37);
    } finally {
      client.close();
      socket.close();
      fake.close();
    }
  });

  it('only broken answers: stunBadAnswer at the deadline', async () => {
    const fake = await fakeServer((req) => {
      const b = success(req, { xorMappedAddress: { address: '198.51.100.9', port: 4242 } });
      b[b.length - 1] = b[b.length - 1]! ^ 0xff;
      return [b];
    });
    const { socket, client } = await sharedSocket({ rtoMs: 100 });
    try {
      const err = await failure(client.binding(fake.server, { timeoutMs: 500 }));
      expect(keyOf(err)).toBe('stunBadAnswer');
    } finally {
      client.close();
      socket.close();
      fake.close();
    }
  });

  it('an error answer, and a success without an address', async () => {
    const fake = await fakeServer((req, n) => [n === 0 ? success(req, { errorCode: { code: 420, reason: 'Unknown Attribute' } }, 'error') : success(req, { software: 'x' })]);
    const { socket, client } = await sharedSocket();
    try {
      const e1 = await failure(client.binding(fake.server, { timeoutMs: 1000 }));
      expect((e1 as MsgError).msg).toEqual({ key: 'stunErrorAnswer', vars: { code: 420, reason: 'Unknown Attribute' } });
      const e2 = await failure(client.binding(fake.server, { timeoutMs: 1000 }));
      expect(keyOf(e2)).toBe('stunNoMappedAddress');
    } finally {
      client.close();
      socket.close();
      fake.close();
    }
  });

  it('RFC 3489 answers: MAPPED-ADDRESS, SOURCE-ADDRESS, CHANGED-ADDRESS', async () => {
    const fake = await fakeServer((req) => [
      success(req, { mappedAddress: { address: '203.0.113.1', port: 1000 }, sourceAddress: { address: '127.0.0.1', port: 1 }, changedAddress: { address: '127.0.0.9', port: 2 } }),
    ]);
    const { socket, client } = await sharedSocket();
    try {
      const r = await client.binding(fake.server, { timeoutMs: 1000 });
      expect(r).toMatchObject({ mapped: { address: '203.0.113.1', port: 1000 }, responseOrigin: { address: '127.0.0.1', port: 1 }, otherAddress: { address: '127.0.0.9', port: 2 } });
    } finally {
      client.close();
      socket.close();
      fake.close();
    }
  });

  it('answers to retransmissions that arrive after the transaction settled are still swallowed', async () => {
    let lastReq: Buffer | null = null;
    const sent: Buffer[] = [];
    const client = new UdpStunClient((buf) => {
      lastReq = buf;
      sent.push(buf);
    });
    const p = client.binding({ address: '192.0.2.1', port: 3478, label: 'x' }, { timeoutMs: 1000 });
    const answer = success(decodeStun(lastReq!), { xorMappedAddress: { address: '192.0.2.50', port: 9 } });
    const from = { address: '192.0.2.1', port: 3478 };
    expect(client.offer(answer, from)).toBe(true);
    await expect(p).resolves.toMatchObject({ mapped: { address: '192.0.2.50', port: 9 } });
    expect(client.offer(answer, from)).toBe(true);
    expect(client.offer(success(decodeStun(lastReq!), {}, 'success').fill(0, 8, 20), from)).toBe(false);
    client.close();
  });

  it('close() and an abort signal reject what is pending', async () => {
    const client = new UdpStunClient(() => {});
    const server = { address: '192.0.2.1', port: 3478, label: 'x' };
    const a = client.binding(server, { timeoutMs: 5000 });
    const ac = new AbortController();
    const b = client.binding(server, { timeoutMs: 5000, signal: ac.signal });
    ac.abort(new Error('stop'));
    await expect(b).rejects.toThrow('stop');
    client.close();
    await expect(a).rejects.toThrow(/closed/);
    await expect(client.binding(server)).rejects.toThrow(/closed/);
  });

  it('natBehaviourTest: a server that does not answer, and one without OTHER-ADDRESS', async () => {
    const silent = await udp();
    try {
      const t0 = Date.now();
      const r = await natBehaviourTest({ server: { address: '127.0.0.1', port: silent.address().port, label: 'silent' }, localHost: '127.0.0.1', timeoutMs: 500 });
      expect(Date.now() - t0).toBeLessThan(2000);
      expect(r.publicAddr).toBeNull();
      expect(r.verdict.key).toBe('stunVerdictUnknown');
      expect(r.steps[0]!.key).toBe('stunServerFailed');
    } finally {
      silent.close();
    }
    const plain = await fakeServer((req) => [success(req, { xorMappedAddress: { address: '203.0.113.5', port: 7000 } })]);
    try {
      const r = await natBehaviourTest({ server: plain.server, localHost: '127.0.0.1', timeoutMs: 500 });
      expect(r.publicAddr).toBe('203.0.113.5:7000');
      expect(r.steps.map((s) => s.key)).toEqual(['stunTestBinding', 'stunTestNoOther']);
      expect(r.verdict).toEqual({ key: 'stunVerdictUnknown', vars: { detail: { key: 'stunTestNoOther', vars: { server: plain.server.label } } } });
    } finally {
      plain.close();
    }
  });
});

describe('natBehaviourTest with servers that only half do RFC 5780', () => {
  const other = { address: '127.0.0.2', port: 9 };
  for (const [name, onChange, filtering] of [
    ['refuses CHANGE-REQUEST (as coturn with one address does)', 'refuse', 'unknown'],
    ['ignores CHANGE-REQUEST and answers from where it was asked', 'ignore', 'unknown'],
    ['never answers a CHANGE-REQUEST (what a filtering NAT looks like)', 'drop', 'addressAndPortDependent'],
  ] as const) {
    it(`a server that ${name}: filtering ${filtering}`, async () => {
      const fake = await fakeServer((req) => {
        const mapped = { xorMappedAddress: { address: '127.0.0.1', port: 1 }, otherAddress: other };
        if (!req.attrs.changeRequest || onChange === 'ignore') return [success(req, mapped)];
        if (onChange === 'refuse') return [success(req, { errorCode: { code: 420, reason: 'Unknown Attribute' } }, 'error')];
        return null;
      });
      try {
        const r = await natBehaviourTest({ server: fake.server, localHost: '127.0.0.1', timeoutMs: 300 });
        expect(r.filtering).toBe(filtering);
        // Mapped to 127.0.0.1:1, not our port: a NAT as far as the test can tell, and nothing listens on the other address.
        expect(r.mapping).toBe('unknown');
        expect(r.verdict.key).toBe('stunVerdictUnknown');
      } finally {
        fake.close();
      }
    });
  }
});

describe('resolveStunServer', () => {
  it('takes literals and local names, with 3478 by default, IPv4 only', async () => {
    await expect(resolveStunServer('127.0.0.1')).resolves.toEqual({ host: '127.0.0.1', port: 3478, address: '127.0.0.1', label: '127.0.0.1:3478' });
    await expect(resolveStunServer(' localhost:19302 ')).resolves.toEqual({ host: 'localhost', port: 19302, address: '127.0.0.1', label: 'localhost:19302' });
    expect(keyOf(await failure(resolveStunServer('[::1]:3478')))).toBe('stunNoIpv4');
    expect(keyOf(await failure(resolveStunServer('bad host!')))).toBe('stunResolveFailed');
    expect(keyOf(await failure(resolveStunServer('127.0.0.1:0')))).toBe('stunResolveFailed');
  });
});
