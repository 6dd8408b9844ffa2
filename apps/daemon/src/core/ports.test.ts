import { renderMsg } from '@lucky/contracts';
import { describe, expect, it } from 'vitest';
import { endpointsConflict, PortConflict, PortRegistry, type Endpoint, type PortOwner } from './ports.js';

const tcp = (address: string, port: number, v6only = false): Endpoint => ({ proto: 'tcp', address, port, v6only });
const udp = (address: string, port: number): Endpoint => ({ proto: 'udp', address, port });
const web1: PortOwner = { module: 'web', key: 'a', name: 'NAS' };
const web2: PortOwner = { module: 'web', key: 'b', name: 'Blog' };
const pf: PortOwner = { module: 'portforward', key: 'c', name: 'RDP' };

describe('which endpoints conflict', () => {
  it.each([
    ['same address and port', tcp('127.0.0.1', 80), tcp('127.0.0.1', 80), true],
    ['other port', tcp('127.0.0.1', 80), tcp('127.0.0.1', 81), false],
    ['TCP and UDP on one number', tcp('0.0.0.0', 53), udp('0.0.0.0', 53), false],
    ['0.0.0.0 takes 127.0.0.1', tcp('0.0.0.0', 80), tcp('127.0.0.1', 80), true],
    ['two different IPv4 addresses', tcp('127.0.0.1', 80), tcp('192.168.1.2', 80), false],
    [':: (dual stack) takes IPv4 too', tcp('::', 80), tcp('127.0.0.1', 80), true],
    ['"" is every address', tcp('', 80), tcp('::1', 80), true],
    [':: v6only leaves IPv4 alone', tcp('::', 80, true), tcp('0.0.0.0', 80), false],
    [':: v6only takes ::1', tcp('::', 80, true), tcp('::1', 80), true],
    ['an IPv4-mapped address is IPv4', tcp('::ffff:127.0.0.1', 80), tcp('127.0.0.1', 80), true],
    ['port 0 is chosen by the system', tcp('0.0.0.0', 0), tcp('0.0.0.0', 0), false],
  ])('%s', (_what, a, b, conflict) => {
    expect(endpointsConflict(a, b)).toBe(conflict);
    expect(endpointsConflict(b, a)).toBe(conflict);
  });
});

describe('the port registry', () => {
  it('refuses a second owner and names the first, in both languages', () => {
    const r = new PortRegistry();
    r.claim([tcp('0.0.0.0', 18080)], web1);
    let err: unknown;
    try {
      r.claim([tcp('127.0.0.1', 18080)], web2);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PortConflict);
    const msg = (err as PortConflict).msg;
    expect(renderMsg('en_US', msg)).toBe('tcp 127.0.0.1:18080 is taken by the web services rule "NAS"');
    expect(renderMsg('zh_CN', msg)).toBe('tcp 127.0.0.1:18080 已被Web服务规则“NAS”占用');
  });

  it('claims all or nothing, and a new claim of the same owner replaces its old one', () => {
    const r = new PortRegistry();
    r.claim([tcp('0.0.0.0', 81)], pf);
    expect(() => r.claim([tcp('0.0.0.0', 80), tcp('0.0.0.0', 81)], web1)).toThrow(PortConflict);
    // Nothing of the refused claim stayed behind.
    expect(() => r.claim([tcp('0.0.0.0', 80)], web2)).not.toThrow();
    r.claim([tcp('0.0.0.0', 90)], web2);
    expect(r.list().filter((c) => c.owner.key === 'b').map((c) => c.endpoint.port)).toEqual([90]);
    // The owner's own earlier claim is not a conflict with itself.
    expect(() => r.check([tcp('0.0.0.0', 90)], web2)).not.toThrow();
  });

  it('lets the port go when the owner releases it', () => {
    const r = new PortRegistry();
    r.claim([udp('0.0.0.0', 5000)], pf);
    expect(() => r.check([udp('127.0.0.1', 5000)], web1)).toThrow(PortConflict);
    r.release(pf);
    expect(() => r.claim([udp('127.0.0.1', 5000)], web1)).not.toThrow();
    expect(r.list()).toHaveLength(1);
  });

  it('names the console when its port is asked for', () => {
    const r = new PortRegistry();
    r.claim([tcp('::', 16601)], { module: 'console', key: '', name: 'console' });
    try {
      r.check([tcp('0.0.0.0', 16601)], web1);
      expect.unreachable();
    } catch (e) {
      expect(renderMsg('en_US', (e as PortConflict).msg)).toBe("tcp 0.0.0.0:16601 is the admin console's port");
    }
  });
});

describe('the port registry at scale', () => {
  it('re-claims and releases rules of 4096 ports beside each other, each rule its own ports', () => {
    const r = new PortRegistry();
    const range = (from: number) => Array.from({ length: 4096 }, (_, i) => tcp('0.0.0.0', from + i));
    for (let n = 0; n < 10; n++) r.claim(range(1024 + n * 4096), { module: 'portforward', key: `r${n}`, name: `R${n}` });
    for (let n = 0; n < 10; n++) r.claim(range(1024 + n * 4096), { module: 'portforward', key: `r${n}`, name: `R${n}` });
    r.release({ module: 'portforward', key: 'r3', name: 'R3' });
    expect(r.list()).toHaveLength(9 * 4096);
    expect(() => r.check([tcp('127.0.0.1', 1024 + 3 * 4096)], web1)).not.toThrow();
    expect(() => r.check([tcp('127.0.0.1', 1024 + 4 * 4096)], web1)).toThrow(PortConflict);
  });
});
