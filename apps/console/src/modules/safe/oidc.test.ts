/** The single sign-on helpers: what is sent, when a kept secret must be typed again, the redirect URIs. */
import { SECRET_MASK, ZOidcSettings, ZWebRule, type WebRuleInput } from '@lucky/contracts';
import { describe, expect, it } from 'vitest';
import { consoleCallback, formToOidc, portalCallbacks, secretAgain } from './oidc';

const site = (domains: string[], portal = false) => ({ domains, service: { type: 'close' as const }, portal: { enable: portal } });
const rule = (key: string, over: Partial<WebRuleInput>) => ({ ...ZWebRule.parse({ name: key.toUpperCase(), port: 443, ...over }), key });

describe('single sign-on helpers', () => {
  it('drops group rows left entirely empty, and keeps a half-filled one for the schema to judge', () => {
    const f = ZOidcSettings.parse({ portalGroups: [{ group: 'family', rules: [] }] });
    const sent = formToOidc({ ...f, portalGroups: [...f.portalGroups, { group: ' ', rules: [] }, { group: '', rules: ['w1'] }] });
    expect(sent.portalGroups).toEqual([
      { group: 'family', rules: [] },
      { group: '', rules: ['w1'] },
    ]);
  });

  it('asks for the secret again when the issuer changed behind a mask, as the daemon would drop it', () => {
    const saved = { issuer: 'https://auth.example.com' };
    expect(secretAgain({ issuer: ' https://auth.example.com ', clientSecret: SECRET_MASK }, saved)).toBeNull();
    expect(secretAgain({ issuer: 'https://other.example.com', clientSecret: SECRET_MASK }, saved)).toContain('客户端密钥');
    expect(secretAgain({ issuer: 'https://other.example.com', clientSecret: 'typed' }, saved)).toBeNull();
    expect(secretAgain({ issuer: 'https://other.example.com', clientSecret: '' }, saved)).toBeNull();
  });

  it("puts the console's callback under the page's base, a safe entry path included", () => {
    expect(consoleCallback('http://192.168.1.2:16601/#/safe')).toBe('http://192.168.1.2:16601/api/oidc/callback');
    expect(consoleCallback('https://lucky.example.com/s3cret/#/safe')).toBe('https://lucky.example.com/s3cret/api/oidc/callback');
  });

  it("lists the portal's callbacks of the sites with Lucky login, as browsers reach them", () => {
    const rules = [
      // On the rule: every site of it; its HTTPS port as seen from outside.
      rule('w1', { protocol: 'https', port: 8443, redirectToPort: 443, portal: { enable: true }, subRules: [site(['b.example.com', '*.example.com'])] }),
      // On one site only; a plain HTTP rule on its own port.
      rule('w2', { protocol: 'http', port: 8080, subRules: [site(['a.example.com'], true), site(['open.example.com'])] }),
      rule('w3', { protocol: 'https', port: 9443, subRules: [site(['c.example.com', 'fd00::1'], true), site(['b.example.com'], true)] }),
    ];
    expect(portalCallbacks(rules)).toEqual([
      'http://a.example.com:8080/.lucky/sso/callback',
      'https://[fd00::1]:9443/.lucky/sso/callback',
      'https://b.example.com/.lucky/sso/callback',
      'https://b.example.com:9443/.lucky/sso/callback',
      'https://c.example.com:9443/.lucky/sso/callback',
    ]);
    expect(portalCallbacks([rule('w4', { subRules: [site(['x.example.com'])] })])).toEqual([]);
  });
});
