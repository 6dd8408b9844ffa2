import { describe, expect, it } from 'vitest';
import { ZAccessPolicy, type BackupSummary } from '@lucky/contracts';
import {
  accessToForm,
  cleanTotp,
  dateToExpiry,
  expiryToDate,
  formToAccess,
  freedMemory,
  isExpired,
  recoveryText,
  safeEntryAddress,
  shortAgent,
  summaryIsEmpty,
  summaryRows,
} from './helpers';

const mem = (heapUsed: number, rss: number) => ({ rss, heapUsed, heapTotal: 0, external: 0, arrayBuffers: 0 });

describe('security helpers', () => {
  it('builds the safe entry address', () => {
    expect(safeEntryAddress('http://127.0.0.1:16601', 'my-door')).toBe('http://127.0.0.1:16601/my-door/');
    expect(safeEntryAddress('http://[::1]:16601', ' x_1 ')).toBe('http://[::1]:16601/x_1/');
    expect(safeEntryAddress('http://h:1', '')).toBe('http://h:1/');
  });

  it('round-trips an expiry date: the entry holds through the whole chosen day', () => {
    const exp = dateToExpiry('2030-02-28');
    expect(exp).toBe(new Date(2030, 2, 1).getTime());
    expect(expiryToDate(exp)).toBe('2030-02-28');
    expect(isExpired({ expires: exp }, new Date(2030, 1, 28, 23, 59).getTime())).toBe(false);
    expect(isExpired({ expires: exp }, new Date(2030, 2, 1, 0, 0, 1).getTime())).toBe(true);
    expect(dateToExpiry('')).toBe(0);
    expect(dateToExpiry('28/02/2030')).toBe(0);
    expect(expiryToDate(0)).toBe('');
    expect(isExpired({ expires: 0 })).toBe(false);
  });

  it('turns the access form into a policy the contract accepts, dropping empty rows', () => {
    const form = accessToForm(ZAccessPolicy.parse({ whitelist: [{ cidr: '203.0.113.0/24', note: 'office' }] }));
    expect(form.whitelist).toEqual([{ cidr: '203.0.113.0/24', note: 'office', date: '' }]);
    form.blacklist.push({ cidr: ' 198.51.100.7 ', note: ' bad ', date: '2031-01-01' }, { cidr: '', note: '', date: '' });
    form.localNetworks = '100.64.0.0/10\n\n  fd00::/8 \n';
    const policy = formToAccess(form);
    expect(policy.blacklist).toEqual([{ cidr: '198.51.100.7', note: 'bad', expires: new Date(2031, 0, 2).getTime() }]);
    expect(policy.localNetworks).toEqual(['100.64.0.0/10', 'fd00::/8']);
    expect(ZAccessPolicy.safeParse(policy).success).toBe(true);
    // A half-filled row is kept so that validation can name it.
    form.whitelist.push({ cidr: '', note: 'forgot the address', date: '' });
    expect(ZAccessPolicy.safeParse(formToAccess(form)).success).toBe(false);
  });

  it('reports freed memory, never negative', () => {
    expect(freedMemory(mem(5e6, 9e7), mem(3e6, 8e7))).toEqual({ heap: 2e6, rss: 1e7 });
    expect(freedMemory(mem(3e6, 8e7), mem(5e6, 9e7))).toEqual({ heap: 0, rss: 0 });
  });

  it('orders a restore summary with changing modules first and spots an empty one', () => {
    const s: BackupSummary = {
      base: [],
      modules: {
        wol: { add: 0, update: 0, remove: 0, settings: false },
        ddns: { add: 2, update: 0, remove: 1, settings: false },
        cron: { add: 0, update: 0, remove: 0, settings: true },
      },
      stores: {},
      secretsIncluded: false,
      created: 1,
      version: '0.1.0',
    };
    expect(summaryRows(s).map((r) => r.module)).toEqual(['cron', 'ddns', 'wol']);
    expect(summaryIsEmpty(s)).toBe(false);
    expect(summaryIsEmpty({ ...s, modules: { wol: { add: 0, update: 0, remove: 0, settings: false } } })).toBe(true);
    expect(summaryIsEmpty({ ...s, base: ['LogLevel'], modules: {} })).toBe(false);
    // Certificates restored change something even when no rule does.
    expect(summaryIsEmpty({ ...s, modules: {}, stores: { certificates: 0 } })).toBe(true);
    expect(summaryIsEmpty({ ...s, modules: {}, stores: { certificates: 2 } })).toBe(false);
  });

  it('cleans TOTP input and joins recovery codes', () => {
    expect(cleanTotp(' 123 456 ')).toBe('123456');
    expect(cleanTotp('123-456')).toBe('123456');
    expect(recoveryText(['aaaaa-bbbbb', 'ccccc-ddddd'])).toBe('aaaaa-bbbbb\nccccc-ddddd');
  });

  it('shortens user agents', () => {
    expect(shortAgent('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36')).toBe(
      'Chrome/131 · Linux',
    );
    expect(shortAgent('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36 Edg/120.0')).toBe('Edge/120 · Windows');
    expect(shortAgent('curl/8.5.0')).toBe('curl/8.5.0');
    expect(shortAgent('')).toBe('-');
  });
});
