import { SECRET_MASK, ZPortalSettings, ZPortalUser, ZWebRule } from '@lucky/contracts';
import { describe, expect, it } from 'vitest';
import { listed } from '../../testing/dom';
import { checkRule, checkSettings, emptyForm, formToRule, passwordHint, requiresLogin, ruleChoices, ruleNames, settingsToBody, settingsToForm, toForm, totpState, type UserForm } from './form';
import { portalTextIn } from './i18n';

const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DP';
const stored = ZPortalUser.parse({ name: 'alice', password: SECRET_MASK, totp: SECRET_MASK, rules: ['w1'], note: 'n' });
const view = listed(stored, { sessions: 2, lastLogin: 1 });
const filled = (over: Partial<UserForm> = {}): UserForm => ({ ...emptyForm(), name: 'bob', password: 'pw', ...over });

describe('portal user form ↔ rule', () => {
  it('a new user has the contract defaults: on, no 2FA, every protected rule', () => {
    expect(formToRule(filled())).toEqual(ZPortalUser.parse({ name: 'bob', password: 'pw' }));
    expect(emptyForm()).toMatchObject({ name: '', enable: true, password: '', totp: '', rules: [], stored: false });
  });

  it('a stored user goes back as it came: the masks keep the password and the secret', () => {
    const f = toForm(view);
    expect(f.stored).toBe(true);
    expect(formToRule(f)).toEqual(stored);
    expect(checkRule(f)).toEqual([]);
  });

  it("a stored user's emptied password goes as the mask, which keeps it", () => {
    expect(formToRule({ ...toForm(view), password: '' }).password).toBe(SECRET_MASK);
    expect(formToRule({ ...toForm(view), password: 'new' }).password).toBe('new');
  });

  it('a new user needs a password, in the daemon\'s own words', () => {
    const [p] = checkRule(filled({ password: '' }), 'en_US');
    expect(p).toMatchObject({ path: 'password', message: 'a new user needs a password' });
    expect(checkRule(filled({ password: '' }), 'zh_CN')[0]!.message).toBe('新用户需要设置密码');
    expect(checkRule({ ...toForm(view), password: '' })).toEqual([]);
  });

  it('names a bad user name by its label, with the contract\'s rule', () => {
    const [p] = checkRule(filled({ name: 'a b' }), 'en_US');
    expect(p!.path).toBe('name');
    expect(p!.message).toBe('User name: a user name is 1-64 letters, digits or . _ @ -');
    expect(checkRule(filled({ name: '' }), 'en_US')[0]!.path).toBe('name');
  });

  it('2FA: the mask is on, an enrolled secret new, empty off; removing sends empty', () => {
    expect(totpState(SECRET_MASK)).toBe('on');
    expect(totpState(SECRET)).toBe('new');
    expect(totpState('')).toBe('off');
    expect(formToRule({ ...toForm(view), totp: SECRET }).totp).toBe(SECRET);
    expect(formToRule({ ...toForm(view), totp: '' }).totp).toBe('');
  });

  it('says under the password what keeps it', () => {
    const t = portalTextIn('en_US');
    expect(passwordHint({ stored: false, password: '' }, t)).toBe('A new user needs a password');
    // The mask explains itself (SecretInput).
    expect(passwordHint({ stored: true, password: SECRET_MASK }, t)).toBeUndefined();
    expect(passwordHint({ stored: true, password: '' }, t)).toContain(SECRET_MASK);
  });
});

describe('the web rules a user may open', () => {
  const web = (key: string, name: string, rule: boolean, sub = false) => ({
    key,
    ...ZWebRule.parse({ name, port: 1, portal: { enable: rule }, subRules: [{ name: 's', domains: ['a.example.com'], service: { type: 'close' }, portal: { enable: sub } }] }),
  });
  const rules = [web('w1', 'site', true), web('w2', 'app', false, true), web('w3', 'open', false)];
  const t = portalTextIn('en_US');

  it('Lucky login on the rule or on one of its sub rules counts', () => {
    expect(rules.map(requiresLogin)).toEqual([true, true, false]);
  });

  it('offers every rule by name, marks one without login, keeps a deleted one to take out', () => {
    expect(ruleChoices(rules, ['w1', 'gone'], t)).toEqual([
      { value: 'w1', label: 'site' },
      { value: 'w2', label: 'app' },
      { value: 'w3', label: 'open (login not on)' },
      { value: 'gone', label: 'gone (does not exist)' },
    ]);
    // Before the rules are read nothing is called missing.
    expect(ruleChoices(undefined, ['w1'], t)).toEqual([]);
  });

  it('lists the names; a deleted rule by its key', () => {
    expect(ruleNames(['w2', 'gone'], rules, t).map((e) => e.label)).toEqual(['app', 'gone (does not exist)']);
    expect(ruleNames(['w2'], undefined, t)).toEqual([{ key: 'w2', label: 'w2' }]);
  });
});

describe('settings', () => {
  it('go back as they came; the domain trimmed; bounds and a bad domain named', () => {
    const c = ZPortalSettings.parse({});
    expect(settingsToBody(settingsToForm(c))).toEqual(c);
    expect(settingsToBody({ cookieDomain: ' home.example.com ', idleMinutes: '30', absoluteHours: 24 })).toEqual({ cookieDomain: 'home.example.com', idleMinutes: 30, absoluteHours: 24 });
    expect(checkSettings({ cookieDomain: '', idleMinutes: 30, absoluteHours: 24 })).toEqual([]);
    expect(checkSettings({ cookieDomain: '*.example.com', idleMinutes: 30, absoluteHours: 24 }, 'en_US')[0]!.message).toMatch(/^Cookie domain: must be a domain name/);
    expect(checkSettings({ cookieDomain: '', idleMinutes: 0, absoluteHours: '' }, 'en_US').map((p) => p.path)).toEqual(['idleMinutes', 'absoluteHours']);
  });
});
