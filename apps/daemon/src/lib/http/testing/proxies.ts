/** Minimal forward proxies for the proxy tests: HTTP CONNECT (with Basic auth) and SOCKS5 (RFC 1928/1929). */
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TestProxy {
  address: string;
  /** host:port of every tunnel opened. */
  tunnels: string[];
  close(): Promise<void>;
}

function listen(server: Server, tunnels: string[], sockets: Set<Socket>): Promise<TestProxy> {
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
        tunnels,
        close: () =>
          new Promise((r) => {
            for (const s of sockets) s.destroy();
            server.close(() => r());
          }),
      }),
    ),
  );
}

function pipeTo(client: Socket, host: string, port: number, onOpen: () => void): void {
  const upstream = connect(port, host, onOpen);
  upstream.on('error', () => client.destroy());
  client.on('error', () => upstream.destroy());
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
  client.pipe(upstream);
  upstream.pipe(client);
}

export function httpConnectProxy(auth?: { user: string; password: string }): Promise<TestProxy> {
  const tunnels: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    let head = Buffer.alloc(0);
    const onData = (b: Buffer) => {
      head = Buffer.concat([head, b]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) return;
      client.off('data', onData);
      const text = head.subarray(0, end).toString('latin1');
      const rest = head.subarray(end + 4);
      const m = /^CONNECT ([^\s:]+):(\d+) HTTP\/1\.[01]/.exec(text);
      if (!m) return client.end('HTTP/1.1 405 Method Not Allowed\r\n\r\n');
      if (auth) {
        const want = `Basic ${Buffer.from(`${auth.user}:${auth.password}`).toString('base64')}`;
        const got = /\r\nproxy-authorization:\s*([^\r\n]+)/i.exec(text)?.[1];
        if (got !== want) return client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\n\r\n');
      }
      tunnels.push(`${m[1]}:${m[2]}`);
      client.pause();
      pipeTo(client, m[1]!, Number(m[2]), () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (rest.length) client.unshift(rest);
        client.resume();
      });
    };
    client.on('data', onData);
    client.on('error', () => undefined);
  });
  return listen(server, tunnels, sockets);
}

export function socks5Proxy(auth?: { user: string; password: string }): Promise<TestProxy> {
  const tunnels: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    let buf = Buffer.alloc(0);
    let stage: 'greet' | 'auth' | 'request' = 'greet';
    const onData = (b: Buffer) => {
      buf = Buffer.concat([buf, b]);
      for (;;) {
        if (stage === 'greet') {
          if (buf.length < 2 || buf.length < 2 + buf[1]!) return;
          const methods = [...buf.subarray(2, 2 + buf[1]!)];
          buf = buf.subarray(2 + buf[1]!);
          const want = auth ? 2 : 0;
          if (!methods.includes(want)) return client.end(Buffer.from([5, 0xff]));
          client.write(Buffer.from([5, want]));
          stage = auth ? 'auth' : 'request';
        } else if (stage === 'auth') {
          if (buf.length < 2) return;
          const ul = buf[1]!;
          if (buf.length < 3 + ul) return;
          const pl = buf[2 + ul]!;
          if (buf.length < 3 + ul + pl) return;
          const user = buf.subarray(2, 2 + ul).toString();
          const pass = buf.subarray(3 + ul, 3 + ul + pl).toString();
          buf = buf.subarray(3 + ul + pl);
          if (user !== auth!.user || pass !== auth!.password) return client.end(Buffer.from([1, 1]));
          client.write(Buffer.from([1, 0]));
          stage = 'request';
        } else {
          if (buf.length < 5) return;
          const atyp = buf[3]!;
          let host: string;
          let off: number;
          if (atyp === 1) {
            if (buf.length < 10) return;
            host = [...buf.subarray(4, 8)].join('.');
            off = 8;
          } else if (atyp === 3) {
            const len = buf[4]!;
            if (buf.length < 7 + len) return;
            host = buf.subarray(5, 5 + len).toString();
            off = 5 + len;
          } else return client.end(Buffer.from([5, 8, 0, 1, 0, 0, 0, 0, 0, 0]));
          const port = buf.readUInt16BE(off);
          const rest = buf.subarray(off + 2);
          client.off('data', onData);
          tunnels.push(`${host}:${port}`);
          client.pause();
          pipeTo(client, host, port, () => {
            client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
            if (rest.length) client.unshift(rest);
            client.resume();
          });
          return;
        }
      }
    };
    client.on('data', onData);
    client.on('error', () => undefined);
  });
  return listen(server, tunnels, sockets);
}
