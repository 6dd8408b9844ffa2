import { describe, expect, it } from 'vitest';
import { MODULES } from '@lucky/contracts';
import { moduleLabel } from './cells';
import { agoParts, allDevices, filterDevices, checkDevice, checkSettings, emptyForm, formatUptime, formToDevice, parseRuleJson, ruleTotals, toForm } from './form';

const TOKEN = `lk_${'t'.repeat(43)}`;
const UNITS = { d: 'd', h: 'h', min: 'min', s: 's' };

describe('Wanji admin form', () => {
  it('turns the form into the contract input: tags by commas or lines, once each, CA kept as pasted', () => {
    const d = formToDevice({ ...emptyForm(), name: ' NAS ', url: ' https://nas.lan:16601 ', token: ` ${TOKEN} `, tags: 'home, nas\nnas,, ', ca: '  ' });
    expect(d).toEqual({ name: 'NAS', enable: true, url: 'https://nas.lan:16601', token: TOKEN, pin: '', ca: '', group: '', tags: ['home', 'nas'], note: '' });
    expect(toForm(d)).toMatchObject({ tags: 'home, nas' });
  });

  it('names the field of a bad address, token or pin', () => {
    const base = { ...emptyForm(), name: 'NAS', url: 'https://nas.lan', token: TOKEN };
    expect(checkDevice(base)).toEqual([]);
    expect(checkDevice({ ...base, token: '******' })).toEqual([]);
    const url = checkDevice({ ...base, url: 'nas.lan:16601' }, 'en_US');
    expect(url[0]).toMatchObject({ field: 'url' });
    expect(url[0]!.message).toContain('Address');
    expect(checkDevice({ ...base, token: 'abc' }, 'en_US')[0]).toMatchObject({ field: 'token', inline: expect.stringContaining('lk_') });
    expect(checkDevice({ ...base, url: 'http://nas.lan', pin: 'AB'.repeat(32) }, 'en_US')[0]).toMatchObject({ field: 'pin', inline: expect.stringContaining('https') });
    expect(checkDevice({ ...base, name: '' }, 'zh_CN')[0]!.message).toContain('名称');
    // A saved token stays behind its mask only at the same address, pin and CA.
    const saved = { url: 'https://nas.lan', pin: '', ca: '' };
    expect(checkDevice({ ...base, token: '******', url: 'https://nas.lan/' }, 'en_US', saved)).toEqual([]);
    expect(checkDevice({ ...base, token: '******', url: 'https://nas2.lan' }, 'en_US', saved)[0]).toMatchObject({ field: 'token', inline: expect.stringContaining('type the token again') });
    expect(checkDevice({ ...base, url: 'https://nas2.lan' }, 'en_US', saved)).toEqual([]);
  });

  it('checks the settings with the contract', () => {
    expect(checkSettings({ interval: 30, timeout: 5, concurrency: 16, expiryDays: 14 })).toEqual([]);
    expect(checkSettings({ interval: 2, timeout: 5, concurrency: 16, expiryDays: 14 }, 'en_US')[0]).toMatchObject({ field: 'interval' });
    expect(checkSettings({ interval: 30, timeout: '', concurrency: 16, expiryDays: 14 }, 'en_US')[0]).toMatchObject({ field: 'timeout' });
  });

  it('says uptimes and ages in their largest units', () => {
    expect(formatUptime(0, UNITS)).toBe('0 s');
    expect(formatUptime(59, UNITS)).toBe('59 s');
    expect(formatUptime(3 * 86400 + 4 * 3600 + 5, UNITS)).toBe('3 d 4 h');
    expect(formatUptime(2 * 3600 + 5, UNITS)).toBe('2 h');
    expect(agoParts(12_400)).toEqual({ n: 12, unit: 's' });
    expect(agoParts(3 * 60_000 + 1)).toEqual({ n: 3, unit: 'min' });
    expect(agoParts(-5)).toEqual({ n: 0, unit: 's' });
    expect(agoParts(50 * 3600_000)).toEqual({ n: 2, unit: 'd' });
  });

  it('adds up rules and errors, and reads the push JSON', () => {
    expect(ruleTotals({ rules: { wol: { total: 2, enabled: 1, errors: 0 }, ddns: { total: 3, enabled: 3, errors: 2 } } })).toEqual({ total: 5, errors: 2 });
    expect(parseRuleJson('{"name":"x"}')).toEqual({ name: 'x' });
    for (const bad of ['', '[1]', 'null', '"x"', '{']) expect(parseRuleJson(bad), bad).toBeNull();
  });

  it('names every module, those without a name of their own in the shell by their page title', () => {
    for (const m of MODULES) expect(moduleLabel(m.key), m.key).toMatch(/\S/);
    expect(moduleLabel('wol')).toBe('网络唤醒');
    expect(moduleLabel('acme')).toBe('证书');
    expect(moduleLabel('nope')).toBe('nope');
  });

  it('filters a long fleet by words, group and online state, a page at a time', () => {
    const dev = (i: number, o: Partial<{ group: string; online: string; enable: boolean; tags: string[] }> = {}) => ({
      name: `dev ${i}`, url: `http://10.0.0.${i}:16601`, group: o.group ?? '', tags: o.tags ?? [], note: '', enable: o.enable ?? true, state: { online: o.online ?? 'online' },
    });
    const rows = Array.from({ length: 120 }, (_, i) => dev(i, { group: i % 2 ? 'site a' : 'site b', online: i % 10 === 0 ? 'offline' : 'online', tags: i === 7 ? ['Core'] : [] }));
    const first = filterDevices(rows, allDevices());
    expect(first).toMatchObject({ total: 120, pages: 3, page: 1 });
    expect(first.rows).toHaveLength(50);
    expect(filterDevices(rows, { ...allDevices(), page: 9 })).toMatchObject({ page: 3, rows: expect.any(Array) });
    expect(filterDevices(rows, { ...allDevices(), page: 9 }).rows).toHaveLength(20);
    expect(filterDevices(rows, { ...allDevices(), size: 0 }).rows).toHaveLength(120);
    expect(filterDevices(rows, { ...allDevices(), online: 'offline' }).total).toBe(12);
    expect(filterDevices(rows, { ...allDevices(), group: 'site a', online: 'offline' }).total).toBe(0);
    expect(filterDevices(rows, { ...allDevices(), q: 'core' }).rows.map((d) => d.name)).toEqual(['dev 7']);
    expect(filterDevices(rows, { ...allDevices(), q: '10.0.0.11: dev' }).rows.map((d) => d.name)).toEqual(['dev 11']);
    expect(filterDevices([dev(1, { enable: false, online: 'offline' })], { ...allDevices(), online: 'offline' }).total).toBe(0);
  });
});
