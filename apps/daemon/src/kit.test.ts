/**
 * The module kit across modules, through the real API: secrets declared once in a contract are
 * masked in every answer, kept when the mask comes back, left out of backups and never logged.
 */
import { createSocket, type Socket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from './test/harness.js';

describe('secrets declared in a contract', () => {
  let d: TestDaemon;
  let receiver: Socket;
  let port: number;
  const packets: Buffer[] = [];
  const SECRET = 'a1:b2:c3:d4:e5:f6';

  beforeAll(async () => {
    d = await startTestDaemon();
    receiver = createSocket('udp4');
    receiver.on('message', (m) => packets.push(m));
    await new Promise<void>((r) => receiver.bind(0, '127.0.0.1', r));
    port = receiver.address().port;
  });
  afterAll(async () => {
    receiver.close();
    await d.close();
  });

  it('are masked in answers, kept when the mask comes back, out of backups, and never logged', async () => {
    // Everything the daemon can log, logged.
    expect((await d.call('PUT', '/api/baseconfigure', { LogLevel: 6 })).ret).toBe(0);
    const created = await d.call<{ key: string }>('POST', '/api/wol/rules', { name: 'NAS', macs: ['aa:bb:cc:dd:ee:ff'], broadcast: '127.0.0.1', port, repeat: 1, secureOn: SECRET });
    expect(created.ret).toBe(0);
    const url = `/api/wol/rules/${created.key}`;
    const shown = await d.call<{ rule: Record<string, unknown> }>('GET', url);
    expect(shown.rule.secureOn).toBe('******');
    expect(JSON.stringify(await d.call('GET', '/api/wol/rules'))).not.toContain(SECRET);

    // The form sends back what it was shown, with another name: the secret stays.
    const { key: _k, status: _s, created: _c, updated: _u, lastWake: _l, ...input } = shown.rule;
    expect((await d.call('PUT', url, { ...input, name: 'NAS 2' })).ret).toBe(0);
    expect((await d.call<{ sent: number }>('POST', `${url}/wake`)).sent).toBe(1);
    for (let i = 0; i < 50 && packets.length < 1; i++) await new Promise((r) => setTimeout(r, 20));
    // The packet on the wire ends with the SecureOn password: the stored secret was kept.
    expect(packets[0]!.subarray(102).toString('hex')).toBe(SECRET.replace(/:/g, ''));

    const backup = await d.runtime.app.inject({ method: 'GET', url: '/api/configure', headers: { 'lucky-admin-token': d.token } });
    expect(backup.body).not.toContain(SECRET);
    expect(JSON.parse(backup.body).modules.wol.rules[0].data.secureOn).toBe('******');
    const full = await d.runtime.app.inject({ method: 'GET', url: '/api/configure?secrets=1', headers: { 'lucky-admin-token': d.token } });
    expect(JSON.parse(full.body).modules.wol.rules[0].data.secureOn).toBe(SECRET);

    const logs = [
      ...d.runtime.programLog.read(0, 'en_US'),
      ...(await d.call<{ logs: Array<{ log: string }> }>('GET', `${url}/logs`)).logs,
    ]
      .map((l) => l.log)
      .join('\n');
    expect(logs).toContain('NAS 2');
    expect(logs).not.toContain(SECRET);
    expect(logs.toLowerCase()).not.toContain(SECRET.replace(/:/g, ''));
  });
});
