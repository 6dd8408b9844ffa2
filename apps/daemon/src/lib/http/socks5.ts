/**
 * A SOCKS5 connector for undici's Agent (RFC 1928, username/password by RFC 1929): the tunnel to the
 * target through the proxy, then TLS over it for https. Ours rather than undici's Socks5ProxyAgent,
 * which names an IP-address target as the TLS server name: Node 26 refuses that outright
 * (ERR_INVALID_ARG_VALUE), and RFC 6066 forbids it. Here a host name is the server name, an address
 * none.
 */
import { isIP, connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import type { buildConnector } from 'undici';
import { parseHostPort } from '@lucky/contracts';

export interface Socks5Proxy {
  /** host:port, [v6]:port */
  address: string;
  user?: string;
  password?: string;
}

/** The proxy's greeting, login and answer to CONNECT must come within this. */
const HANDSHAKE_MS = 10_000;

export function socks5Connector(proxy: Socks5Proxy, tls: ConnectionOptions): buildConnector.connector {
  const { host, port } = parseHostPort(proxy.address, 1080) ?? { host: proxy.address, port: 1080 };
  return (opts, callback) => {
    const target = opts.hostname.replace(/^\[|\]$/g, '');
    const targetPort = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
    const socket = tcpConnect({ host, port });
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      callback(err, null);
    };
    socket.once('error', fail);
    socket.setTimeout(HANDSHAKE_MS, () => fail(new Error(`the SOCKS5 proxy ${proxy.address} did not answer in time`)));
    tunnel(socket, target, targetPort, proxy).then(() => {
      socket.setTimeout(0);
      socket.off('error', fail);
      if (opts.protocol !== 'https:') {
        settled = true;
        callback(null, socket);
        return;
      }
      const servername = opts.servername || (isIP(target) ? '' : target);
      // `host` is what the certificate is checked against when there is no server name (else 'localhost').
      const secure = tlsConnect({ ...tls, socket, host: target, ...(servername ? { servername } : {}), ALPNProtocols: ['http/1.1'] });
      secure.once('error', fail);
      secure.once('secureConnect', () => {
        secure.off('error', fail);
        settled = true;
        callback(null, secure);
      });
    }, fail);
  };
}

/** The handshake up to the proxy's "succeeded": afterwards the socket carries the target's bytes. */
async function tunnel(socket: Socket, host: string, port: number, proxy: Socks5Proxy): Promise<void> {
  const read = reader(socket);
  const login = !!proxy.user;
  socket.write(Buffer.from(login ? [5, 2, 0, 2] : [5, 1, 0]));
  const [version, method] = await read(2);
  if (version !== 5) throw new Error(`${proxy.address} is not a SOCKS5 proxy`);
  if (method === 2 && login) {
    const user = Buffer.from(proxy.user!);
    const pass = Buffer.from(proxy.password ?? '');
    socket.write(Buffer.concat([Buffer.from([1, user.length]), user, Buffer.from([pass.length]), pass]));
    const [, status] = await read(2);
    if (status !== 0) throw new Error(`the SOCKS5 proxy ${proxy.address} refused the username or password`);
  } else if (method !== 0) {
    throw new Error(`the SOCKS5 proxy ${proxy.address} wants a login ${login ? 'method we do not offer' : 'and none is set'}`);
  }
  socket.write(Buffer.concat([Buffer.from([5, 1, 0]), addressBytes(host), Buffer.from([port >> 8, port & 0xff])]));
  const head = await read(4);
  if (head[1] !== 0) throw new Error(`the SOCKS5 proxy ${proxy.address} could not reach ${host}:${port} (${REPLIES[head[1]!] ?? `reply ${head[1]}`})`);
  // The address the proxy bound, then its port: read and dropped.
  const atyp = head[3];
  const rest = atyp === 1 ? 4 : atyp === 4 ? 16 : atyp === 3 ? (await read(1))[0]! : -1;
  if (rest < 0) throw new Error(`the SOCKS5 proxy ${proxy.address} answered an unknown address type`);
  await read(rest + 2);
  read.done();
}

const REPLIES: Record<number, string> = {
  1: 'general failure',
  2: 'not allowed by its rules',
  3: 'network unreachable',
  4: 'host unreachable',
  5: 'connection refused',
  6: 'TTL expired',
  7: 'command not supported',
  8: 'address type not supported',
};

function addressBytes(host: string): Buffer {
  if (isIP(host) === 4) return Buffer.from([1, ...host.split('.').map(Number)]);
  if (isIP(host) === 6) return Buffer.concat([Buffer.from([4]), ipv6Bytes(host)]);
  const name = Buffer.from(host);
  return Buffer.concat([Buffer.from([3, name.length]), name]);
}

function ipv6Bytes(host: string): Buffer {
  let text = host.replace(/%.*$/, '');
  // An IPv4 tail (::ffff:1.2.3.4) as two groups.
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = text.slice(0, v4.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [left, right] = text.split('::') as [string, string | undefined];
  const head = left ? left.split(':') : [];
  const tail = right ? right.split(':') : [];
  const groups = right === undefined ? head : [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}

/** Reads exact byte counts from the socket; `done` stops, handing back what came after. */
function reader(socket: Socket): ((n: number) => Promise<Buffer>) & { done: () => void } {
  let buf: Buffer = Buffer.alloc(0);
  let want: { n: number; resolve: (b: Buffer) => void; reject: (e: Error) => void } | null = null;
  const take = () => {
    if (!want || buf.length < want.n) return;
    const out = buf.subarray(0, want.n);
    buf = buf.subarray(want.n);
    const w = want;
    want = null;
    w.resolve(out);
  };
  const onData = (b: Buffer) => {
    buf = buf.length ? Buffer.concat([buf, b]) : b;
    take();
  };
  const onEnd = () => want?.reject(new Error('the SOCKS5 proxy closed the connection'));
  socket.on('data', onData);
  socket.once('end', onEnd);
  const read = (n: number) =>
    new Promise<Buffer>((resolve, reject) => {
      want = { n, resolve, reject };
      take();
    });
  return Object.assign(read, {
    done: () => {
      socket.off('data', onData);
      socket.off('end', onEnd);
      // Nothing more comes before the client speaks (the request, or TLS's hello); a proxy that
      // sent more anyway has it handed back.
      if (buf.length) socket.unshift(buf);
    },
  });
}
