/** The registry against the descriptions: one client per described provider, reading and deleting exactly where the description says. */
import { DDNS_PROVIDER_INFO, DDNS_PROVIDERS } from '@lucky/contracts';
import { describe, expect, it } from 'vitest';
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
});
