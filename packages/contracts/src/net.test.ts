import { describe, expect, it } from 'vitest';
import { isCidr, isIP, isIPv4, isIPv6 } from './net.js';

describe('address helpers', () => {
  it('accepts and refuses IPv4', () => {
    for (const ok of ['0.0.0.0', '127.0.0.1', '255.255.255.255', '192.168.1.10']) expect(isIPv4(ok), ok).toBe(true);
    for (const bad of ['256.1.1.1', '1.2.3', '1.2.3.4.5', '01.2.3.4', '1.2.3.-1', 'a.b.c.d', '', ' 1.2.3.4']) {
      expect(isIPv4(bad), bad).toBe(false);
    }
  });
  it('accepts and refuses IPv6', () => {
    for (const ok of ['::', '::1', 'fe80::1%eth0', '2001:db8::8a2e:370:7334', '1:2:3:4:5:6:7:8', '::ffff:192.168.1.1', '64:ff9b::1.2.3.4', 'fd00::']) {
      expect(isIPv6(ok), ok).toBe(true);
    }
    for (const bad of ['1:2:3:4:5:6:7:8:9', ':::1', '1::2::3', 'g::1', '12345::', '1.2.3.4', '', '::1%', '1:2:3:4:5:6:7::8:9']) {
      expect(isIPv6(bad), bad).toBe(false);
    }
    expect(isIP('::1') && isIP('10.0.0.1') && !isIP('x')).toBe(true);
  });
  it('checks CIDRs', () => {
    for (const ok of ['10.0.0.0/8', '192.168.1.1', 'fd00::/8', '::/0', '0.0.0.0/0']) expect(isCidr(ok), ok).toBe(true);
    for (const bad of ['10.0.0.0/33', 'fd00::/129', '10.0.0.0/', '10.0.0.0/8/1', 'x/8']) expect(isCidr(bad), bad).toBe(false);
  });
});
