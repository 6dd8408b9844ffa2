import { DEFAULT_CORS_METHODS, SECRET_MASK, ZWebRule, type WebFigures } from '@lucky/contracts';
import { describe, expect, it } from 'vitest';
import { errorFor } from '../../kit/form/problems';
import { clampShow } from './AccessLog';
import { accessSectionOf, checkReplace, checkRule, checkSubRule, fieldLabel, missingPassword, tabOf } from './checks';
import {
  bodyToBytes,
  bodyToForm,
  emptyAccess,
  emptyRule,
  emptyService,
  emptySubRule,
  formToRule,
  formToService,
  formToSubRule,
  parseHeaders,
  ruleToForm,
  serviceToForm,
  words,
  type RuleForm,
} from './form';
import { webTextIn } from './i18n';
import { codeList, figuresText, listenText, openUrl, ruleDomains } from './listing';

/** The form's problem, one at a time as the form shows it. */
const first = <T,>(found: T[]) => found[0] ?? null;

function proxyRule(): RuleForm {
  const f = emptyRule();
  f.name = 'site';
  f.port = 18080;
  f.defaultService = { ...emptyService('text'), body: 'hello {clientIP}' };
  const sub = emptySubRule();
  sub.name = 'app';
  sub.domains = 'app.example.com\n\n *.app.example.com ';
  sub.service.targets = 'http://127.0.0.1:3000\nhttps://10.0.0.2:8443';
  sub.service.requestHeaders = 'X-A: 1\nX-B:two words';
  f.subRules = [sub];
  return f;
}

describe('web form helpers', () => {
  it('a new rule holds the schema defaults: HTTP on tcp4, a 404 text default, CORS methods of spec section 9', () => {
    const f = emptyRule();
    expect(f).toMatchObject({ name: '', port: '', network: 'tcp4', protocol: 'http', minTls: '1.2', defaultService: { type: 'text', status: 404 } });
    expect(f.access.cors.methods).toBe(DEFAULT_CORS_METHODS.join(', '));
    expect(f.access.cors.methods).toBe('POST, GET, PUT, OPTIONS, DELETE');
    expect(f.clientIpHeaders).toBe('X-Forwarded-For, X-Real-IP');
    expect(f.accessLogCapacity).toBe(1024);
    expect(emptyAccess().ipFilter.mode).toBe('off');
  });

  it('turns the form into a valid rule and back', () => {
    const rule = formToRule(proxyRule());
    expect(ZWebRule.safeParse(rule).success).toBe(true);
    expect(rule.port).toBe(18080);
    expect(rule.subRules[0]!.domains).toEqual(['app.example.com', '*.app.example.com']);
    const svc = rule.subRules[0]!.service;
    expect(svc.type).toBe('proxy');
    if (svc.type !== 'proxy') throw new Error('type');
    expect(svc.targets).toEqual(['http://127.0.0.1:3000', 'https://10.0.0.2:8443']);
    expect(svc.requestHeaders).toEqual([
      { name: 'X-A', value: '1' },
      { name: 'X-B', value: 'two words' },
    ]);
    const again = ruleToForm(ZWebRule.parse(rule));
    expect(formToRule(again)).toEqual(ZWebRule.parse(rule));
    expect(again.subRules[0]!.access.basicAuth.users).toEqual([]);
  });

  it('keeps only the chosen service type fields, and what was typed survives a type switch', () => {
    const s = { ...emptyService('proxy'), targets: 'http://a:1', redirectTarget: 'https://x{path}', code: 301 as const };
    expect(formToService(s)).toMatchObject({ type: 'proxy', targets: ['http://a:1'] });
    expect(formToService({ ...s, type: 'redirect' })).toEqual({ type: 'redirect', code: 301, target: 'https://x{path}' });
    expect(formToService({ ...s, type: 'close' })).toEqual({ type: 'close' });
    expect(formToService({ ...s, type: 'file', root: ' /srv ', index: 'index.html\nindex.htm' })).toEqual({
      type: 'file',
      root: '/srv',
      listing: false,
      index: ['index.html', 'index.htm'],
    });
    expect(serviceToForm({ type: 'jump', target: 'https://{host}' }).jumpTarget).toBe('https://{host}');
    expect(serviceToForm({ type: 'text', status: 200, contentType: 'text/html', body: 'x' })).toMatchObject({ type: 'text', status: 200, body: 'x' });
  });

  it('parses headers and word lists', () => {
    expect(parseHeaders('A: b\n\nC:d: e\nNoColon')).toEqual([
      { name: 'A', value: 'b' },
      { name: 'C', value: 'd: e' },
      { name: 'NoColon', value: '' },
    ]);
    expect(words(' post, GET\nput  ')).toEqual(['post', 'GET', 'put']);
  });

  it('a sub rule without domains: "domain cannot be empty" (spec section 5), in both languages', () => {
    const sub = emptySubRule();
    sub.service = { ...emptyService('text'), body: 'x' };
    const zh = first(checkSubRule(sub, 'zh_CN'));
    expect(zh?.message).toBe('域名不能为空');
    expect(zh?.path).toBe('domains');
    expect(zh?.summary).toContain('domains');
    expect(first(checkSubRule(sub, 'en_US'))?.message).toBe('Domain cannot be empty');
    // Whitespace-only lines are no domain either.
    sub.domains = '  \n ';
    expect(first(checkSubRule(sub, 'zh_CN'))?.message).toBe('域名不能为空');
    sub.domains = 'ok.example.com';
    expect(first(checkSubRule(sub, 'zh_CN'))).toBeNull();
  });

  it('names the sub rule and the line of a bad entry inside the rule', () => {
    const f = proxyRule();
    f.subRules[0]!.domains = 'ok.example.com\nbad domain';
    const p = first(checkRule(f, 'en_US'));
    expect(p?.path).toBe('subRules.0.domains.1');
    expect(p?.message).toBe('Sub rule 1 · Domain, line 2: is not a valid domain');
    expect(tabOf(p!.path)).toBe('subrules');
    f.subRules[0]!.domains = 'ok.example.com';
    f.subRules[0]!.service.targets = 'ftp://x';
    expect(first(checkRule(f, 'zh_CN'))?.message).toBe('子规则 1 · 后端地址第 1 行：不是有效的后端地址（http:// 或 https://）');
    f.subRules[0]!.service.targets = '';
    expect(first(checkRule(f, 'zh_CN'))?.message).toBe('子规则 1 · 后端地址不能为空');
  });

  it('checks port, access log capacity and CIDRs with the contracts', () => {
    const f = proxyRule();
    f.port = '';
    let p = first(checkRule(f, 'zh_CN'));
    expect(p?.path).toBe('port');
    expect(tabOf(p!.path)).toBe('basic');
    f.port = 8080;
    f.accessLogCapacity = 102401;
    p = first(checkRule(f, 'en_US'));
    expect(p?.path).toBe('accessLog.capacity');
    expect(p?.message).toBe('Access log capacity cannot be more than 102400');
    f.accessLogCapacity = -1;
    expect(first(checkRule(f, 'zh_CN'))?.message).toBe('访问日志容量不能小于 0');
    expect(tabOf(p!.path)).toBe('access');
    f.accessLogCapacity = 0;
    f.access.ipFilter = { mode: 'whitelist', list: '192.168.1.0/24\n10.0.0.0/33' };
    p = first(checkRule(f, 'en_US'));
    expect(p?.path).toBe('ipFilter.list.1');
    expect(accessSectionOf(p!.path)).toBe('ipFilter');
    expect(errorFor(checkRule(f, 'en_US'), 'ipFilter')).toBe(p?.message);
    expect(errorFor(checkRule(f, 'en_US'), 'uaFilter')).toBeUndefined();
    f.access.ipFilter.list = '192.168.1.0/24';
    expect(first(checkRule(f, 'en_US'))).toBeNull();
  });

  it('labels by path', () => {
    expect(fieldLabel(['defaultService', 'targets', 0], webTextIn('zh_CN'))).toBe('后端地址');
    expect(fieldLabel(['subRules', 2, 'basicAuth', 'users', 0, 'user'], webTextIn('en_US'))).toBe('Sub rule 3 · User name');
    expect(fieldLabel(['somethingElse'], webTextIn('en_US'))).toBe('somethingElse');
    expect(tabOf('certs.0.cert')).toBe('https');
    expect(tabOf('defaultService.body')).toBe('service');
  });

  it('the batch replace refuses an empty domain', () => {
    expect(first(checkReplace({ from: '', to: 'b.example.com', keys: [] }, 'zh_CN'))?.message).toBe('原域名不能为空');
    expect(first(checkReplace({ from: 'a.example.com', to: '', keys: [] }, 'en_US'))?.message).toBe('New domain cannot be empty');
    expect(first(checkReplace({ from: 'a.example.com', to: 'b.example.com', keys: [] }, 'en_US'))).toBeNull();
  });

  it('new users need a password; stored users keep theirs when blank', () => {
    expect(missingPassword([{ user: 'a', password: '', stored: true, storedName: 'a' }])).toBeNull();
    expect(missingPassword([{ user: 'b', password: '', stored: false, storedName: '' }])).toBe('b');
    expect(missingPassword([{ user: 'b', password: 'x', stored: false, storedName: '' }])).toBeNull();
    // A stored user renamed is a new user: its password cannot stay blank.
    expect(missingPassword([{ user: 'a2', password: '', stored: true, storedName: 'a' }])).toBe('a2');
    // A stored user's password comes masked and shows as a blank field.
    const f = ruleToForm(ZWebRule.parse({ name: 'r', port: 1, basicAuth: { users: [{ user: 'u', password: SECRET_MASK }] } }));
    expect(f.access.basicAuth.users[0]).toMatchObject({ stored: true, password: '' });
    // Sent back with the blank password: the daemon keeps the stored hash.
    expect(formToRule(f).basicAuth.users).toEqual([{ user: 'u', password: '' }]);
    expect(formToSubRule(emptySubRule()).basicAuth.users).toEqual([]);
  });

  it('Lucky login: off with the Remote-User header by default, on the rule and each sub rule, back and forth', () => {
    expect(emptyAccess().portal).toEqual({ enable: false, userHeader: 'Remote-User' });
    const f = proxyRule();
    f.access.portal = { enable: true, userHeader: ' X-User ' };
    f.subRules[0]!.access.portal = { enable: true, userHeader: '' };
    const rule = formToRule(f);
    expect(rule.portal).toEqual({ enable: true, userHeader: 'X-User' });
    // Empty: the app gets no user header.
    expect(rule.subRules[0]!.portal).toEqual({ enable: true, userHeader: '' });
    expect(ZWebRule.safeParse(rule).success).toBe(true);
    const again = ruleToForm(ZWebRule.parse(rule));
    expect(again.access.portal).toEqual({ enable: true, userHeader: 'X-User' });
    expect(again.subRules[0]!.access.portal).toEqual({ enable: true, userHeader: '' });
    expect(formToSubRule(emptySubRule()).portal).toEqual({ enable: false, userHeader: 'Remote-User' });
  });

  it('a bad user header is named, on the access tab, in the Lucky login fold', () => {
    const f = proxyRule();
    f.subRules[0]!.access.portal = { enable: true, userHeader: 'Remote User' };
    const p = first(checkRule(f, 'en_US'));
    expect(p?.path).toBe('subRules.0.portal.userHeader');
    expect(p?.message).toMatch(/^Sub rule 1 · User header: /);
    expect(tabOf(p!.path)).toBe('subrules');
    expect(accessSectionOf(p!.path)).toBe('portal');
    f.subRules[0]!.access.portal.userHeader = 'Remote-User';
    f.access.portal = { enable: true, userHeader: 'a:b' };
    expect(tabOf(first(checkRule(f, 'zh_CN'))!.path)).toBe('access');
    expect(first(checkRule(f, 'zh_CN'))?.message).toMatch(/^用户名请求头/);
  });

  it('forward auth: off with the four Remote-* headers by default, on the rule and each sub rule, back and forth', () => {
    expect(emptyAccess().forwardAuth).toEqual({ enable: false, url: '', copyHeaders: 'Remote-User\nRemote-Groups\nRemote-Email\nRemote-Name', timeoutSeconds: 10, skipTlsVerify: false });
    const f = proxyRule();
    f.access.forwardAuth = { enable: true, url: ' http://authelia:9091/api/authz/forward-auth ', copyHeaders: 'Remote-User\n\n Remote-Groups ', timeoutSeconds: 5, skipTlsVerify: true };
    f.subRules[0]!.access.forwardAuth = { ...emptyAccess().forwardAuth, enable: true, url: 'http://127.0.0.1:4180/oauth2/auth', copyHeaders: '' };
    const rule = formToRule(f);
    expect(rule.forwardAuth).toEqual({ enable: true, url: 'http://authelia:9091/api/authz/forward-auth', copyHeaders: ['Remote-User', 'Remote-Groups'], timeoutSeconds: 5, skipTlsVerify: true });
    // None listed: the app gets no header of the authorizer's.
    expect(rule.subRules[0]!.forwardAuth).toEqual({ enable: true, url: 'http://127.0.0.1:4180/oauth2/auth', copyHeaders: [], timeoutSeconds: 10, skipTlsVerify: false });
    expect(first(checkRule(f, 'en_US'))).toBeNull();
    const again = ruleToForm(ZWebRule.parse(rule));
    expect(again.access.forwardAuth.copyHeaders).toBe('Remote-User\nRemote-Groups');
    expect(formToRule(again)).toEqual(ZWebRule.parse(rule));
    expect(formToSubRule(emptySubRule()).forwardAuth).toEqual(ZWebRule.parse({ name: 'x', port: 1 }).forwardAuth);
  });

  it('forward auth on without its authorizer: the daemon\'s message, on the field, its tab and its fold; the sub rule dialog says it too', () => {
    const f = proxyRule();
    f.access.forwardAuth.enable = true;
    let p = first(checkRule(f, 'zh_CN'));
    expect(p?.path).toBe('forwardAuth.url');
    expect(p?.message).toBe('开启转发认证需要填写认证服务地址');
    expect(errorFor(checkRule(f, 'zh_CN'), 'forwardAuth.url')).toBe(p?.message);
    expect(tabOf(p!.path)).toBe('access');
    expect(accessSectionOf(p!.path)).toBe('forwardAuth');
    expect(first(checkRule(f, 'en_US'))?.message).toBe('forward auth needs the address of the authorizer');
    // Off, an empty address is no problem.
    f.access.forwardAuth.enable = false;
    expect(first(checkRule(f, 'en_US'))).toBeNull();
    f.subRules[0]!.access.forwardAuth.enable = true;
    f.subRules[0]!.access.forwardAuth.url = '  ';
    p = first(checkRule(f, 'en_US'));
    expect(p?.path).toBe('subRules.0.forwardAuth.url');
    expect(tabOf(p!.path)).toBe('subrules');
    expect(accessSectionOf(p!.path)).toBe('forwardAuth');
    expect(first(checkSubRule(f.subRules[0]!, 'en_US'))).toMatchObject({ path: 'forwardAuth.url', message: 'forward auth needs the address of the authorizer' });
  });

  it('forward auth fields are checked with the contracts: the address, the header names, the timeout', () => {
    const f = proxyRule();
    f.access.forwardAuth = { ...emptyAccess().forwardAuth, enable: true, url: 'ftp://auth' };
    expect(first(checkRule(f, 'zh_CN'))?.message).toMatch(/^认证服务地址/);
    f.access.forwardAuth.url = 'http://auth:9091/api/authz/forward-auth';
    f.access.forwardAuth.copyHeaders = 'Remote-User\nRemote Groups';
    const p = first(checkRule(f, 'en_US'));
    expect(p?.path).toBe('forwardAuth.copyHeaders.1');
    expect(p?.message).toMatch(/^Headers copied to the app, line 2: /);
    f.access.forwardAuth.copyHeaders = 'Remote-User';
    f.access.forwardAuth.timeoutSeconds = 61;
    expect(first(checkRule(f, 'en_US'))?.message).toBe('Authorizer timeout cannot be more than 60');
    f.access.forwardAuth.timeoutSeconds = '';
    expect(first(checkRule(f, 'zh_CN'))?.path).toBe('forwardAuth.timeoutSeconds');
  });

  it('limits: none by default (burst 20), the body size in the largest whole unit, back in bytes', () => {
    expect(emptyRule().limits).toEqual({ rate: 0, burst: 20, connections: 0, maxBody: 0, maxBodyUnit: 'MB' });
    expect(bodyToForm(10e6)).toEqual({ maxBody: 10, maxBodyUnit: 'MB' });
    expect(bodyToForm(2e9)).toEqual({ maxBody: 2, maxBodyUnit: 'GB' });
    expect(bodyToForm(2.5e9)).toEqual({ maxBody: 2500, maxBodyUnit: 'MB' });
    expect(bodyToForm(1_048_576)).toEqual({ maxBody: 1048.576, maxBodyUnit: 'KB' });
    expect(bodyToBytes(1.5, 'KB')).toBe(1500);
    expect(bodyToBytes('0.25', 'GB')).toBe(250_000_000);
    expect(bodyToBytes('', 'MB')).toBeNaN();
    const f = proxyRule();
    f.limits = { rate: 0.5, burst: 10, connections: 8, maxBody: 1048.576, maxBodyUnit: 'KB' };
    const rule = formToRule(f);
    expect(rule.limits).toEqual({ rate: 0.5, burst: 10, connections: 8, maxBodyBytes: 1_048_576 });
    expect(first(checkRule(f, 'en_US'))).toBeNull();
    expect(ruleToForm(ZWebRule.parse(rule)).limits).toEqual(f.limits);
    // Limits belong to the rule: a sub rule has none.
    expect('limits' in formToSubRule(f.subRules[0]!)).toBe(false);
  });

  it('bad limits are named on the access tab', () => {
    const f = proxyRule();
    f.limits.burst = 2.5;
    let p = first(checkRule(f, 'en_US'));
    expect(p?.path).toBe('limits.burst');
    expect(p?.message).toMatch(/^Burst: /);
    expect(tabOf(p!.path)).toBe('access');
    expect(accessSectionOf(p!.path)).toBeNull();
    f.limits.burst = 20;
    f.limits.rate = 2_000_000;
    expect(first(checkRule(f, 'zh_CN'))?.message).toBe('请求频率不能大于 1000000');
    f.limits.rate = 1;
    f.limits.connections = '';
    p = first(checkRule(f, 'zh_CN'));
    expect(p?.path).toBe('limits.connections');
    expect(p?.message).toMatch(/^并发连接数/);
    f.limits.connections = 0;
    f.limits.maxBody = 'x';
    expect(first(checkRule(f, 'en_US'))?.path).toBe('limits.maxBodyBytes');
  });

  it('keeps forward auth and limits the API set through a save unchanged', () => {
    const set = ZWebRule.parse({
      name: 'r',
      port: 1,
      forwardAuth: { enable: true, url: 'http://127.0.0.1:9091/api/authz/forward-auth' },
      limits: { rate: 5, connections: 10, maxBodyBytes: 12345 },
      subRules: [{ name: 's', domains: ['a.example.com'], service: { type: 'close' }, forwardAuth: { enable: true, url: 'http://127.0.0.1:4180/oauth2/auth', copyHeaders: ['X-Auth'] } }],
    });
    expect(formToRule(ruleToForm(set))).toEqual(set);
  });

  it('list texts: listen address, open link, domains, figures, codes', () => {
    expect(listenText({ network: 'tcp4', address: '', port: 80 })).toBe('0.0.0.0:80');
    expect(listenText({ network: 'tcp6', address: '', port: 443 })).toBe('[::]:443');
    expect(listenText({ network: 'tcp4', address: '127.0.0.1', port: 8080 })).toBe('127.0.0.1:8080');
    expect(openUrl({ network: 'tcp4', address: '', port: 80, protocol: 'http' }, 'router.lan')).toBe('http://router.lan:80/');
    expect(openUrl({ network: 'tcp6', address: '::1', port: 8443, protocol: 'https' }, 'x')).toBe('https://[::1]:8443/');
    expect(ruleDomains(formToRule(proxyRule()))).toEqual(['app.example.com', '*.app.example.com']);
    const figs: WebFigures = { requests: 12345, bytesIn: 1234, bytesOut: 999_960, connections: 2, codes: { '200': 3, '404': 9, '0': 1, '502': 0 } };
    expect(figuresText(figs)).toEqual({ requests: '12,345', bytesIn: '1.23 KB', bytesOut: '1.00 MB', connections: '2' });
    expect(codeList(figs.codes)).toEqual([
      ['404', 9],
      ['200', 3],
      ['0', 1],
    ]);
  });

  it('the access log count is 1-256', () => {
    expect(clampShow(10, 50)).toBe(10);
    expect(clampShow(999, 50)).toBe(256);
    expect(clampShow('', 50)).toBe(50);
    expect(clampShow(0, 50)).toBe(50);
    expect(clampShow(2.5, 50)).toBe(50);
  });
});
