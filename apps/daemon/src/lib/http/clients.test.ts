// The daemon's HTTP client against a real server on loopback: a kept-alive connection that died
// without a word (the server resets it when it is reused, as a peer does after the router's
// public address changed) costs nothing but a second connection; a server that resets every
// connection is still an error, said once.
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClients } from './clients.js';

const ANSWER = 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\nok';

describe('HttpClients', () => {
  let server: Server;
  let port: number;
  let connections = 0;
  /** Reset the connection at its second request (a kept-alive one the peer forgot), or at every request. */
  let mode: 'second' | 'always' = 'second';
  const clients = new HttpClients();

  beforeAll(async () => {
    server = createServer((s: Socket) => {
      connections++;
      let requests = 0;
      s.on('data', () => {
        requests++;
        if (mode === 'always' || requests === 2) s.resetAndDestroy();
        else s.write(ANSWER);
      });
      s.on('error', () => undefined);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await clients.close();
    server.close();
  });

  it('sends a request again on a new connection when the kept-alive one turns out dead', async () => {
    const http = clients.client({ timeoutMs: 5000 });
    expect((await http({ url: `http://127.0.0.1:${port}/a` })).text).toBe('ok');
    expect(connections).toBe(1);
    // The second request goes on the kept-alive connection, which the server resets.
    const r = await http({ url: `http://127.0.0.1:${port}/b`, method: 'POST', body: '{"x":1}' });
    expect(r.status).toBe(200);
    expect(r.text).toBe('ok');
    expect(connections).toBe(2);
  });

  it('says a reset once when every connection is reset', async () => {
    mode = 'always';
    const http = clients.client({ timeoutMs: 5000, skipVerify: true });
    const before = connections;
    await expect(http({ url: `http://127.0.0.1:${port}/c` })).rejects.toThrow(/request failed/);
    // The first try and the one repeat, no more.
    expect(connections - before).toBe(2);
  });
});
