/** The provider descriptions: each complete, its texts in both tables, secrets where they belong, and the task schema following them. */
import { describe, expect, it } from 'vitest';
import { DDNS_PROVIDER_INFO, DDNS_PROVIDERS, ddnsProviderListing, ZDdnsTask } from '../ddns.js';
import { MESSAGES } from '../messages.js';
import { secretPaths } from '../secrets.js';
import { DNS_CRED_KEYS, DNS_REGIONS, isSecretField, SECRET_CRED_KEYS } from './define.js';

describe('DNS provider descriptions', () => {
  it('are complete and consistent', () => {
    for (const name of DDNS_PROVIDERS) {
      const d = DDNS_PROVIDER_INFO[name];
      expect(DNS_REGIONS, name).toContain(d.region);
      expect(MESSAGES.zh_CN[d.label], name).toBeTruthy();
      expect(MESSAGES.en_US[d.label], name).toBeTruthy();
      if (name !== 'callback') expect(d.docs, name).toMatch(/^https:\/\/\S+$/);
      expect(d.records[0], name).toBe('A');
      expect(d.minTtl, name).toBeLessThanOrEqual(d.defaultTtl);
      const keys = d.fields.map((f) => f.key);
      expect(new Set(keys).size, name).toBe(keys.length);
      for (const f of d.fields) {
        expect(DNS_CRED_KEYS, name).toContain(f.key);
        expect(MESSAGES.en_US[f.label], `${name}.${f.key}`).toBeTruthy();
        if (f.hint) expect(MESSAGES.en_US[f.hint], `${name}.${f.key}`).toBeTruthy();
        // A password, token or secret, or the only credential, is kept in a secret field (masked, left out of backups).
        const secretish = /Secret(?!Id)|Password|Token|ConsumerKey|DdnsKey/.test(f.label) || d.fields.length === 1;
        if (secretish) expect(isSecretField(f), `${name}.${f.key}`).toBe(true);
      }
    }
  });

  it('the secret fields are the schema’s secrets', () => {
    const paths = secretPaths(ZDdnsTask).map((p) => p.path.join('.'));
    for (const k of SECRET_CRED_KEYS) expect(paths).toContain(`credentials.${k}`);
  });

  it('a task needs the required fields of its provider, and only those', () => {
    for (const name of DDNS_PROVIDERS) {
      const d = DDNS_PROVIDER_INFO[name];
      const r = ZDdnsTask.safeParse({ name: 't', provider: name, domains: ['example.com'], callback: { url: 'http://127.0.0.1/' } });
      const missing = (r.success ? [] : r.error.issues).filter((i) => i.path[0] === 'credentials').map((i) => i.path[1]);
      expect(missing.sort(), name).toEqual(d.fields.filter((f) => !f.optional && f.key !== 'algorithm').map((f) => f.key).sort());
    }
  });

  it('lists a provider with its texts in the language asked for', () => {
    expect(ddnsProviderListing('vercel', 'en_US')).toMatchObject({
      label: 'Vercel',
      regionLabel: 'International',
      fields: [
        { key: 'id', label: 'Team ID (optional)', secret: false, optional: true },
        { key: 'secret', label: 'Token', secret: true, optional: false },
      ],
      id: 'Team ID (optional)',
      idOptional: true,
    });
    expect(ddnsProviderListing('callback', 'zh_CN')).toMatchObject({ fields: [], id: null, secret: null, regionLabel: '通用协议' });
  });
});
