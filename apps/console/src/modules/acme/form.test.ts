import { describe, expect, it } from 'vitest';
import { checkRule, emptyForm, formToRule } from './form';

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
});
