import { ZPublishConfigure, ZPublishRule } from '@lucky/contracts';
import { describe, expect, it } from 'vitest';
import { lightColor } from './CheckList';
import { checkRule, checkSettings, emptyForm, formToRule, isAdvanced, settingsToBody, settingsToForm, toForm, type ServiceForm } from './form';

const filled = (over: Partial<ServiceForm> = {}): ServiceForm => ({ ...emptyForm(), name: 'Home Assistant', target: 'http://192.168.1.5:8123', names: 'ha.example.com', dnsTask: 'k1', ...over });

describe('service form ↔ rule', () => {
  it('a new form has the contract defaults: reached directly, the router asked, 443 and 80 both sides', () => {
    const r = formToRule(filled());
    expect(ZPublishRule.safeParse(r).success).toBe(true);
    expect(r).toEqual(ZPublishRule.parse({ name: 'Home Assistant', target: 'http://192.168.1.5:8123', names: ['ha.example.com'], dnsTask: 'k1' }));
  });

  it('takes names one a line (blank lines, tags and case dropped), trims, and keeps typed ports as numbers', () => {
    const r = formToRule(filled({ name: ' ha ', target: ' http://192.168.1.5:8123 ', names: ' HA.example.com \n\n<b>ha2.example.com</b>\n', httpsPort: '8443', httpPort: 8080, publicHttpsPort: 4443, note: 'n' }));
    expect(r).toMatchObject({ name: 'ha', target: 'http://192.168.1.5:8123', names: ['ha.example.com', 'ha2.example.com'], httpsPort: 8443, httpPort: 8080, publicHttpsPort: 4443, publicHttpPort: 80, note: 'n' });
  });

  it('a blank or non-number port stays NaN, so the check names the field', () => {
    expect(Number.isNaN(formToRule(filled({ httpPort: '' })).httpPort)).toBe(true);
    expect(checkRule(filled({ httpPort: '' }), 'en_US').map((p) => p.path)).toEqual(['httpPort']);
  });

  it('round-trips every field of a saved service', () => {
    const saved = ZPublishRule.parse({
      name: 'nas',
      enable: false,
      target: 'https://192.168.1.9:5001',
      names: ['nas.example.com', 'files.example.com'],
      dnsTask: 'k7',
      httpsPort: 8443,
      httpPort: 8080,
      mapRouter: true,
      publicHttpsPort: 4443,
      publicHttpPort: 80,
      upnpUrl: 'http://192.168.1.1:5000/rootDesc.xml',
      stunServers: ['stun.example.net:3478', 'stun2.example.net'],
      note: 'the NAS',
    });
    expect(toForm(saved).stunServers).toBe('stun.example.net:3478\nstun2.example.net');
    expect(toForm(saved).names).toBe('nas.example.com\nfiles.example.com');
    expect(formToRule(toForm(saved))).toEqual(saved);
  });

  it("the UPnP URL, hidden while the router is not asked, is kept when valid and dropped when not", () => {
    expect(formToRule(filled({ mapRouter: false, upnpUrl: 'http://192.168.1.1:5000/rootDesc.xml' })).upnpUrl).toBe('http://192.168.1.1:5000/rootDesc.xml');
    expect(formToRule(filled({ mapRouter: false, upnpUrl: 'router.lan' })).upnpUrl).toBe('');
    // Shown, a bad one is the user's to fix.
    expect(checkRule(filled({ mapRouter: true, upnpUrl: 'router.lan' }), 'en_US').map((p) => p.path)).toEqual(['upnpUrl']);
  });

  it('names each problem with the form\'s own label, in either language', () => {
    const empty = checkRule(emptyForm(), 'en_US');
    expect(empty.map((p) => p.path)).toEqual(['name', 'target', 'names', 'dnsTask']);
    expect(empty[0]!.message).toBe('Name cannot be empty');
    expect(empty[2]!.message).toBe('Public names cannot be empty');
    expect(checkRule(emptyForm(), 'zh_CN')[1]!.message).toBe('局域网服务不能为空');
    const bad = checkRule(filled({ target: 'ha.lan:8123', names: 'ha.example.com\n*.example.com', publicHttpsPort: 70000 }), 'en_US');
    expect(bad.map((p) => p.path)).toEqual(['target', 'names.1', 'publicHttpsPort']);
    expect(bad[1]!.message).toBe('Public names, line 2: must be a full domain name (such as ha.example.com), without wildcards');
    expect(bad[2]!.message).toMatch(/^Public HTTPS port: /);
  });

  it('STUN mode: the servers one a line, a bad one named by its line', () => {
    const r = formToRule(filled({ reach: 'stun', stunServers: ' stun.example.net:3478 \n\nstun2.example.net\n' }));
    expect(r).toMatchObject({ reach: 'stun', stunServers: ['stun.example.net:3478', 'stun2.example.net'] });
    expect(ZPublishRule.safeParse(r).success).toBe(true);
    const bad = checkRule(filled({ reach: 'stun', stunServers: 'stun.example.net:99999' }), 'en_US');
    expect(bad.map((p) => p.path)).toEqual(['stunServers.0']);
    expect(bad[0]!.message).toMatch(/^STUN servers, line 1: /);
  });

  it('puts the ports, the UPnP URL and the STUN servers in the folded part, the rest outside', () => {
    expect(['httpsPort', 'httpPort', 'publicHttpsPort', 'publicHttpPort', 'upnpUrl', 'stunServers.0'].every(isAdvanced)).toBe(true);
    expect(['name', 'target', 'names.0', 'dnsTask', 'note'].some(isAdvanced)).toBe(false);
  });
});

describe('settings', () => {
  it('the check interval as typed, refused out of 5-3600', () => {
    const c = ZPublishConfigure.parse({});
    expect(settingsToBody(settingsToForm(c))).toEqual(c);
    expect(settingsToBody({ checkInterval: '30' })).toEqual({ checkInterval: 30 });
    expect(checkSettings({ checkInterval: 30 })).toEqual([]);
    expect(checkSettings({ checkInterval: 2 }, 'en_US')[0]!.message).toMatch(/^Check interval \(seconds\): /);
    expect(checkSettings({ checkInterval: '' }, 'en_US').map((p) => p.path)).toEqual(['checkInterval']);
  });
});

describe('the lights', () => {
  it('green ok, red failed, yellow pending once looked at, grey before the first look', () => {
    expect(lightColor({ state: 'ok', checked: 1 })).toBe('green');
    expect(lightColor({ state: 'failed', checked: 1 })).toBe('red');
    expect(lightColor({ state: 'pending', checked: 1 })).toBe('yellow');
    expect(lightColor({ state: 'pending', checked: 0 })).toBe('gray');
  });
});
