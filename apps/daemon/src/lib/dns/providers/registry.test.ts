/** The registry against the descriptions: one client per described provider, reading and deleting exactly where the description says. */
import { DDNS_PROVIDER_INFO, DDNS_PROVIDERS } from '@lucky/contracts';
import { describe, expect, it } from 'vitest';
import { EMPTY_DDNS_CREDENTIALS } from '@lucky/contracts';
import { DNSPOD_TOKEN_BASE, isDnspodToken } from './dnspodtoken.js';
import { PROVIDERS, providerTitle } from './index.js';

describe('the provider registry', () => {
  it('has a client for every description, doing what it says', () => {
    expect(Object.keys(PROVIDERS).sort()).toEqual([...DDNS_PROVIDERS].sort());
    for (const name of DDNS_PROVIDERS) {
      const p = PROVIDERS[name];
      const info = DDNS_PROVIDER_INFO[name];
      expect(p.name, name).toBe(name);
      expect(!!p.list, `${name} list`).toBe(info.read);
      expect(!!p.remove, `${name} remove`).toBe(info.delete);
      expect(p.base === '' || /^https:\/\//.test(p.base), name).toBe(true);
      expect(providerTitle(name), name).not.toBe('');
    }
  });

  it('DNSPod takes a DNSPod Token (numeric ID, or "ID,Token" as the secret) to dnsapi.cn, a Tencent Cloud key to API 3.0', () => {
    const creds = (id: string, secret: string) => ({ ...EMPTY_DDNS_CREDENTIALS, id, secret });
    expect(isDnspodToken(creds('420001', 'f3b0c44298fc1c149afbf4c8996fb924'))).toBe(true);
    expect(isDnspodToken(creds('', '420001,f3b0c44298fc1c149afbf4c8996fb924'))).toBe(true);
    expect(isDnspodToken(creds('AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE', 'Gu5t9xGARNpq86cd98joQYCN3EXAMPLE'))).toBe(false);
    expect(PROVIDERS.dnspod.baseOf!(creds('420001', 'token'))).toBe(DNSPOD_TOKEN_BASE);
    expect(PROVIDERS.dnspod.baseOf!(creds('AKIDx', 'key'))).toBe(PROVIDERS.dnspod.base);
  });
});
