import { describe, expect, it } from 'vitest';
import { formatBytes, isIPv4, isIPv6, isJsonString, lines, LOG_LEVEL_VALUES, randomString, stripTagsAndBlankLines, TIME_ZONES } from './helpers';

describe('helpers', () => {
  it('validates IPv4 and IPv6', () => {
    expect(['192.168.1.1', '256.1.1.1', '01.1.1.1'].filter(isIPv4)).toEqual(['192.168.1.1']);
    expect(['fe80::1%eth0', '2001:db8::1', '::ffff:10.0.0.1', '2001:db8:::1', '1.2.3.4'].filter(isIPv6)).toEqual(['fe80::1%eth0', '2001:db8::1', '::ffff:10.0.0.1']);
  });

  it('checks JSON strings', () => {
    expect(['{"a":1}', '[1,2]', '12', '{a:1}', ''].filter(isJsonString)).toEqual(['{"a":1}', '[1,2]', '12']);
  });

  it('strips tags and blank lines', () => {
    expect(stripTagsAndBlankLines('<b>a.com</b>\n\n  b.com  \r\n<br/>\n c.com')).toBe('a.com\nb.com\nc.com');
    expect(lines('\n\n')).toEqual([]);
    expect(lines('x\n\ny')).toEqual(['x', 'y']);
  });

  it('formats bytes 1000-based with 3 significant digits', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(1000)).toBe('1.00 KB');
    expect(formatBytes(1234)).toBe('1.23 KB');
    expect(formatBytes(12_345_678)).toBe('12.3 MB');
    expect(formatBytes(999_999)).toBe('1.00 MB');
    expect(formatBytes(25_300_000_000)).toBe('25.3 GB');
    expect(formatBytes(-2048)).toBe('-2.05 KB');
  });

  it('makes random strings, 15 characters by default', () => {
    const a = randomString();
    expect(a).toMatch(/^[A-Za-z0-9]{15}$/);
    expect(randomString(40)).toHaveLength(40);
    expect(randomString()).not.toBe(a);
  });

  it('lists about a hundred unique time zones, including UTC12 and JST', () => {
    expect(TIME_ZONES.length).toBeGreaterThanOrEqual(95);
    expect(TIME_ZONES.length).toBeLessThanOrEqual(110);
    const values = TIME_ZONES.map((z) => z.value);
    expect(new Set(values).size).toBe(values.length);
    expect(values).toContain('UTC12');
    expect(TIME_ZONES.find((z) => z.value === 'JST')?.offset).toBe(540);
  });

  it('has log levels 2..6', () => {
    expect(LOG_LEVEL_VALUES).toEqual([2, 3, 4, 5, 6]);
  });
});
