/** Automatic HTTPS in the web rule form and list: the HTTP redirect port, names, the daemon's own refusals. */
import { autoCertNames, ZWebRule } from '@lucky/contracts';
import { describe, expect, it } from 'vitest';
import { emptyCert } from '../../kit/tls/certs';
import { checkRule, tabOf } from './checks';
import { certsChanged, emptyRule, emptySubRule, emptyService, formToRule, ruleToForm, type RuleForm } from './form';
import { autoCertListNames } from './listing';

function httpsRule(): RuleForm {
  const f = emptyRule();
  f.name = 'site';
  f.protocol = 'https';
  f.port = 443;
  const sub = emptySubRule();
  sub.domains = 'app.example.com\n*.example.com\n192.0.2.1';
  sub.service = { ...emptyService('text'), body: 'x' };
  f.subRules = [sub];
  return f;
}

describe('automatic HTTPS in the web rule form', () => {
  it('picking an automatic certificate turns the HTTP redirect port on at 80 when it is off, and only then', () => {
    const f = httpsRule();
    const auto = [emptyCert('auto')];
    expect(certsChanged(f, auto)).toEqual({ certs: auto, httpRedirectPort: 80 });
    expect(certsChanged({ ...f, httpRedirectPort: '' }, auto)).toEqual({ certs: auto, httpRedirectPort: 80 });
    // A port of the user's own stays.
    expect(certsChanged({ ...f, httpRedirectPort: 8080 }, auto)).toEqual({ certs: auto });
    // Already automatic (an edit of its names, or the port cleared on purpose): left alone.
    expect(certsChanged({ ...f, certs: auto }, [{ ...auto[0]!, domains: 'a.example.com' }])).toEqual({ certs: [{ ...auto[0]!, domains: 'a.example.com' }] });
    // Other sources change nothing else.
    expect(certsChanged(f, [emptyCert('pem')])).toEqual({ certs: [emptyCert('pem')] });
  });

  it('sends and reads back the HTTP redirect port with the automatic certificate', () => {
    const f = { ...httpsRule(), ...certsChanged(httpsRule(), [emptyCert('auto')]) };
    const rule = formToRule(f);
    expect(rule).toMatchObject({ protocol: 'https', httpRedirectPort: 80, certs: [{ source: 'auto', domains: [], challenge: 'http-01', dnsTask: '' }] });
    expect(checkRule(f)).toEqual([]);
    const parsed = ZWebRule.parse(rule);
    expect(formToRule(ruleToForm(parsed))).toEqual(parsed);
    expect(ruleToForm(parsed).httpRedirectPort).toBe(80);
    expect(Number.isNaN(formToRule({ ...f, httpRedirectPort: '' }).httpRedirectPort)).toBe(true);
  });

  it("refuses what the daemon would, in its words and on the HTTPS tab: the redirect port on the rule's own port, an automatic certificate without names", () => {
    const f = { ...httpsRule(), certs: [emptyCert('auto')], httpRedirectPort: 443 };
    let [p] = checkRule(f, 'en_US');
    expect(p).toMatchObject({ path: 'httpRedirectPort', message: 'the HTTP redirect port cannot be the HTTPS port 443' });
    expect(tabOf(p!.path)).toBe('https');
    expect(checkRule(f, 'zh_CN')[0]!.message).toBe('HTTP 跳转端口不能与 HTTPS 端口 443 相同');
    // An HTTP rule has no companion: the port is not looked at.
    expect(checkRule({ ...f, protocol: 'http' })).toEqual([]);

    const bare = { ...f, httpRedirectPort: 80, subRules: [{ ...f.subRules[0]!, domains: '*.example.com' }] };
    [p] = checkRule(bare, 'en_US');
    expect(p).toMatchObject({ path: 'certs.0.domains', field: 'certs.domains' });
    expect(p!.message).toMatch(/^an automatic certificate needs names/);
    expect(tabOf(p!.path)).toBe('https');
    // With DNS-01 a wildcard can be certified.
    expect(checkRule({ ...bare, certs: [{ ...emptyCert('auto'), challenge: 'dns-01', dnsTask: 'k1' }] })).toEqual([]);
    // A DNS-01 certificate needs its task, named on its field.
    expect(checkRule({ ...bare, certs: [{ ...emptyCert('auto'), challenge: 'dns-01' }] }, 'en_US')[0]).toMatchObject({ path: 'certs.0.dnsTask', message: "Certificate's DDNS task cannot be empty" });
  });

  it('the names ordered: the entry\'s own, else the enabled sub rules\' full names (wildcards with DNS-01 only, never addresses)', () => {
    const rule = ZWebRule.parse(formToRule({ ...httpsRule(), certs: [emptyCert('auto')] }));
    expect(autoCertNames(rule, rule.certs[0]!)).toEqual(['app.example.com']);
    expect(autoCertNames(rule, { domains: [], challenge: 'dns-01' })).toEqual(['*.example.com', 'app.example.com']);
    expect(autoCertNames(rule, { domains: ['b.example.com', 'a.example.com', 'b.example.com'], challenge: 'http-01' })).toEqual(['a.example.com', 'b.example.com']);
    expect(autoCertNames({ subRules: rule.subRules.map((s) => ({ ...s, enable: false })) }, rule.certs[0]!)).toEqual([]);
  });

  it('the list shows the names of an HTTPS rule\'s automatic certificate, nothing for other rules', () => {
    const rule = ZWebRule.parse(formToRule({ ...httpsRule(), certs: [{ ...emptyCert('store'), cert: 'site' }, { ...emptyCert('auto'), domains: 'www.example.com' }] }));
    expect(autoCertListNames(rule)).toEqual(['www.example.com']);
    expect(autoCertListNames({ ...rule, protocol: 'http' })).toBeNull();
    expect(autoCertListNames({ ...rule, certs: rule.certs.slice(0, 1) })).toBeNull();
  });
});
