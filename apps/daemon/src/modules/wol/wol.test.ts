import { createSocket, type Socket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { magicPacket } from './wol.packet.js';

describe('magic packet', () => {
  it('is 6 × FF then the MAC 16 times', () => {
    const p = magicPacket('01:23:45:67:89:ab');
    expect(p.length).toBe(102);
    expect(p.subarray(0, 6).equals(Buffer.alloc(6, 0xff))).toBe(true);
    for (let i = 0; i < 16; i++) expect(p.subarray(6 + i * 6, 12 + i * 6).toString('hex')).toBe('0123456789ab');
  });
  it('appends the SecureOn password', () => {
    const p = magicPacket('01-23-45-67-89-AB', '11:22:33:44:55:66');
    expect(p.length).toBe(108);
    expect(p.subarray(102).toString('hex')).toBe('112233445566');
  });
});

describe('wol module over the API', () => {
  let d: TestDaemon;
  let receiver: Socket;
  let port: number;
  const received: Buffer[] = [];

  beforeAll(async () => {
    d = await startTestDaemon();
    receiver = createSocket('udp4');
    receiver.on('message', (m) => received.push(m));
    await new Promise<void>((r) => receiver.bind(0, '127.0.0.1', r));
    port = receiver.address().port;
  });
  afterAll(async () => {
    receiver.close();
    await d.close();
  });

  it('creates, lists, wakes, disables and deletes a device', async () => {
    const created = await d.call<{ key: string }>('POST', '/api/wol/rules', {
      name: 'NAS',
      macs: ['aa:bb:cc:dd:ee:ff'],
      broadcast: '127.0.0.1',
      port,
      repeat: 2,
    });
    expect(created.ret).toBe(0);
    const list = await d.call<{ list: Array<{ key: string; name: string; status: { state: string } }> }>('GET', '/api/wol/rules');
    expect(list.list).toHaveLength(1);
    expect(list.list[0]).toMatchObject({ key: created.key, name: 'NAS', status: { state: 'running' } });

    const woke = await d.call<{ sent: number }>('POST', `/api/wol/rules/${created.key}/wake`);
    expect(woke).toMatchObject({ ret: 0, sent: 2 });
    for (let i = 0; i < 50 && received.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect(received).toHaveLength(2);
    expect(received[0]!.equals(magicPacket('aa:bb:cc:dd:ee:ff'))).toBe(true);
    const en = { headers: { 'lucky-lang': 'en_US' } };
    const logs = await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/wol/rules/${created.key}/logs`, undefined, en);
    expect(logs.logs.map((l) => l.log)).toEqual([expect.stringMatching(/ started$/), expect.stringContaining(`sent 2 magic packet(s) to 127.0.0.1:${port}`)]);
    // The same lines in Chinese for a Chinese reader: the log keeps messages, not text.
    const zh = await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/wol/rules/${created.key}/logs`);
    expect(zh.logs.map((l) => l.log)).toEqual([expect.stringMatching(/ 已启动$/), expect.stringContaining(`已发送 2 个唤醒包到 127.0.0.1:${port}`)]);

    expect((await d.call('PUT', `/api/wol/rules/${created.key}/enable`, { enable: false })).ret).toBe(0);
    const after = await d.call<{ rule: { status: { state: string } } }>('GET', `/api/wol/rules/${created.key}`);
    expect(after.rule.status.state).toBe('disabled');
    // A device that is switched off is not woken (scheduled tasks included).
    expect(await d.call('POST', `/api/wol/rules/${created.key}/wake`, undefined, en)).toMatchObject({ ret: 6, msg: 'The rule is switched off' });

    expect((await d.call('DELETE', `/api/wol/rules/${created.key}`)).ret).toBe(0);
    expect((await d.call('GET', `/api/wol/rules/${created.key}`)).ret).toBe(3);
  });

  it('rejects bad devices and saves nothing', async () => {
    const before = await d.call<{ list: unknown[] }>('GET', '/api/wol/rules');
    for (const bad of [
      { name: '', macs: ['aa:bb:cc:dd:ee:ff'] },
      { name: 'x', macs: [] },
      { name: 'x', macs: ['not-a-mac'] },
      { name: 'x', macs: ['aa:bb:cc:dd:ee:ff'], broadcast: '300.1.1.1' },
      { name: 'x', macs: ['aa:bb:cc:dd:ee:ff'], port: 70000 },
      { name: 'x', macs: ['aa:bb:cc:dd:ee:ff'], secureOn: 'zz' },
    ]) {
      const r = await d.call('POST', '/api/wol/rules', bad);
      expect(r.ret, JSON.stringify(bad)).toBe(1);
      expect(r.msg).toBeTruthy();
    }
    const after = await d.call<{ list: unknown[] }>('GET', '/api/wol/rules');
    expect(after.list).toHaveLength(before.list.length);
  });

  it('answers "module disabled" while the module is switched off', async () => {
    const cfg = await d.call<{ baseconfigure: { EnabledModules: string[] } }>('GET', '/api/baseconfigure');
    const others = cfg.baseconfigure.EnabledModules.filter((m) => m !== 'wol');
    expect((await d.call('PUT', '/api/baseconfigure', { EnabledModules: others })).ret).toBe(0);
    const r = await d.call('GET', '/api/wol/rules', undefined, { headers: { 'lucky-lang': 'en_US' } });
    expect(r).toMatchObject({ ret: 4, msg: 'Module wol is disabled' });
    const mods = await d.call<{ Modules: string[] }>('GET', '/api/modules/list');
    expect(mods.Modules).not.toContain('wol');
    expect((await d.call('PUT', '/api/baseconfigure', { EnabledModules: [...others, 'wol'] })).ret).toBe(0);
    expect((await d.call('GET', '/api/wol/rules')).ret).toBe(0);
  });
});
