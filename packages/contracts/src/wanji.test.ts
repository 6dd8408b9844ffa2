import { describe, expect, it } from 'vitest';
import { compareVersions, isDeviceUrl, normalizePin, ZWanjiDevice } from './wanji.js';

const TOKEN = `lk_${'a'.repeat(43)}`;

describe('Wanji admin devices', () => {
  it('takes http(s) base URLs with a port and a path, nothing else', () => {
    for (const ok of ['http://10.0.0.2:16601', 'https://nas.lan', 'https://nas.lan:8443/safe-path', 'http://[fd00::2]:16601/']) expect(isDeviceUrl(ok), ok).toBe(true);
    for (const bad of ['ftp://nas', 'nas.lan:16601', 'http://', 'http://u:p@nas', 'http://nas/?a=1', 'http://nas/#x', 'http://nas /x', '']) expect(isDeviceUrl(bad), bad).toBe(false);
  });

  it('takes tokens of the security module only, and pins or CAs on https only', () => {
    const base = { name: 'nas', url: 'https://nas.lan', token: TOKEN };
    expect(ZWanjiDevice.safeParse(base).success).toBe(true);
    expect(ZWanjiDevice.safeParse({ ...base, token: '******' }).success).toBe(true);
    for (const token of ['', 'lk_short', TOKEN.replace('lk_', 'xx_'), `${TOKEN}a`, `lk_${'!'.repeat(43)}`]) expect(ZWanjiDevice.safeParse({ ...base, token }).success, token).toBe(false);
    const pin = 'ab:'.repeat(31) + 'ab';
    expect(ZWanjiDevice.safeParse({ ...base, pin }).success).toBe(true);
    expect(ZWanjiDevice.safeParse({ ...base, pin: 'AB'.repeat(32) }).success).toBe(true);
    expect(ZWanjiDevice.safeParse({ ...base, pin: 'AB'.repeat(31) }).success).toBe(false);
    const plain = ZWanjiDevice.safeParse({ ...base, url: 'http://nas.lan', pin });
    expect(plain.success).toBe(false);
    expect(plain.error?.issues[0]?.path).toEqual(['pin']);
    expect(normalizePin('ab'.repeat(32))).toBe(('AB:'.repeat(32)).slice(0, -1));
  });

  it('orders versions as releases are numbered', () => {
    const sorted = ['', 'dev', '0.9', '1.0.0-beta.1', '1.0.0', '1.0.1', '1.2', '1.2.9', '1.2.10', 'v2.0.0'];
    for (let i = 0; i < sorted.length; i++) {
      for (let j = 0; j < sorted.length; j++) {
        const want = Math.sign(i - j);
        if (sorted[i] === '' && sorted[j] === 'dev') continue;
        if (sorted[i] === 'dev' && sorted[j] === '') continue;
        expect(compareVersions(sorted[i]!, sorted[j]!), `${sorted[i]} vs ${sorted[j]}`).toBe(want);
      }
    }
    expect(compareVersions('1.2.0', '1.2')).toBe(0);
  });
});
