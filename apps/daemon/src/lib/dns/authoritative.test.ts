/** Finding a zone's name servers through a resolver: a real BIND 9 answers as the resolver and as the zone's server. */
import { createSocket, type Socket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAuthority } from './authoritative.js';
import { startBind, type Bind } from './testing/bind.js';
import { queryTexts } from './wire.js';

describe('authoritative servers of a name', () => {
  let bind: Bind;
  let silent: Socket;
  let silentPort: number;

  beforeAll(async () => {
    bind = await startBind('example.test');
    // A resolver that never answers.
    silent = createSocket('udp4');
    await new Promise<void>((r) => silent.bind(0, '127.0.0.1', r));
    silentPort = silent.address().port;
  }, 30_000);
  afterAll(async () => {
    silent?.close();
    await bind?.stop();
  });

  const lookup = () => ({ resolvers: [`127.0.0.1:${bind.port}`], port: bind.port, timeoutMs: 1000 });

  it('walks up from a name without NS records to the zone, and gives its servers with their addresses', async () => {
    const found = await findAuthority('_acme-challenge.deep.www.example.test', lookup());
    expect(found).toEqual({ zone: 'example.test', servers: [{ name: 'ns.example.test', addresses: [{ host: '127.0.0.1', port: bind.port }] }] });
    // That server answers for itself with recursion off.
    expect(await queryTexts(found.servers[0]!.addresses[0]!, 'nothing.example.test', 2000, false)).toEqual([]);
  });

  it('says why when the resolver refuses or stays silent (bounded)', async () => {
    await expect(findAuthority('www.elsewhere.invalid', lookup())).rejects.toMatchObject({ msg: { key: 'dnsLookupFailed', vars: { type: 'NS', name: 'www.elsewhere.invalid' } } });
    const started = Date.now();
    await expect(findAuthority('www.example.test', { resolvers: [`127.0.0.1:${silentPort}`], timeoutMs: 300 })).rejects.toMatchObject({
      msg: { key: 'dnsLookupFailed', vars: { code: 'ETIMEOUT' } },
    });
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
