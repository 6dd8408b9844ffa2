import { describe, expect, it } from 'vitest';
import { checkRule, emptyForm, formToRule, toForm } from './form';

describe('certificate form', () => {
  it('turns the form into the contract input: domains one a line, numbers kept as NaN when empty', () => {
    const r = formToRule({ ...emptyForm(), name: ' site ', domains: 'Example.COM\n\n *.example.com ', renewBeforeDays: '', httpPort: '8080' });
    expect(r).toMatchObject({ name: 'site', domains: ['example.com', '*.example.com'], httpPort: 8080 });
    expect(Number.isNaN(r.renewBeforeDays)).toBe(true);
  });

  it("refuses a wildcard with HTTP-01 in the daemon's own words, and takes it with DNS-01", () => {
    const base = { ...emptyForm(), name: 'site', domains: '*.example.com' };
    const p = checkRule(base, 'en_US');
    expect(p).toHaveLength(1);
    expect(p[0]!.message).toContain('a wildcard name can only be validated with DNS-01');
    expect(checkRule({ ...base, challenge: 'dns-01', dnsTask: 'k1' })).toEqual([]);
  });

  it('DNS-01 propagation check: on by default, servers one a line, refused in the daemon\'s words when not an address', () => {
    const base = { ...emptyForm(), name: 'site', domains: 'example.com', challenge: 'dns-01' as const, dnsTask: 'k1' };
    expect(formToRule(base)).toMatchObject({ dnsCheck: true, dnsServers: [], dnsCheckTimeout: 300 });
    const r = formToRule({ ...base, dnsServers: ' 192.0.2.53 \n\n[2001:db8::53]:5353\n', dnsCheckTimeout: '60' });
    expect(r).toMatchObject({ dnsServers: ['192.0.2.53', '[2001:db8::53]:5353'], dnsCheckTimeout: 60 });
    expect(checkRule({ ...base, dnsServers: '192.0.2.53\nns1.example.com' }, 'en_US')[0]!.message).toContain('is not a valid IP address');
    expect(checkRule({ ...base, dnsCheckTimeout: 1 })).toHaveLength(1);
    // A saved rule comes back with its servers one a line.
    expect(toForm(r).dnsServers).toBe('192.0.2.53\n[2001:db8::53]:5353');
  });
});
