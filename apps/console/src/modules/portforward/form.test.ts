import { SECRET_MASK, ZPortforwardConfigure, ZPortforwardRule } from '@lucky/contracts';
import { describe, expect, it } from 'vitest';
import {
  checkRule,
  checkSettings,
  defaultLimit,
  emptyForm,
  figuresText,
  formToRule,
  limitValue,
  listenText,
  listItems,
  portFeedback,
  settingsToBody,
  settingsToForm,
  tabOf,
  targetPortFeedback,
  toForm,
  type RuleForm,
} from './form';

const good = (): RuleForm => ({ ...emptyForm(), name: 'nas', listenPorts: '8080', targets: '192.168.1.10', targetPorts: '80' });

describe('form ↔ rule', () => {
  it('a filled form makes a rule the contracts accept; blank limits are null (module default)', () => {
    const r = formToRule(good());
    expect(ZPortforwardRule.safeParse(r).success).toBe(true);
    expect(r.limits).toEqual({ tcpMaxConnections: null, udpMaxSessions: null, udpSessionTimeout: null, udpPacketSize: null, tcpIdleTimeout: null });
    expect(r.types).toEqual(['tcp', 'udp']);
  });

  it('round-trips through toForm', () => {
    const r = formToRule({
      ...good(),
      types: ['udp6', 'tcp4'],
      targets: 'a.lan, b.lan\n10.0.0.2',
      limits: { ...emptyForm().limits, tcpMaxConnections: 5, udpPacketSize: '1200' },
      filterMode: 'blacklist',
      filterList: '10.0.0.0/8\n\n192.0.2.1',
    });
    expect(r.types).toEqual(['tcp4', 'udp6']);
    expect(r.targets).toEqual(['a.lan', 'b.lan', '10.0.0.2']);
    expect(r.limits.tcpMaxConnections).toBe(5);
    expect(r.limits.udpPacketSize).toBe(1200);
    expect(r.filter).toEqual({ mode: 'blacklist', list: ['10.0.0.0/8', '192.0.2.1'] });
    expect(formToRule(toForm(r))).toEqual(r);
  });

  it('limit values: blank → null, text → NaN (so the field is named)', () => {
    expect(limitValue('')).toBeNull();
    expect(limitValue(' ')).toBeNull();
    expect(limitValue(0)).toBe(0);
    expect(limitValue('x')).toBeNaN();
  });

  it('list items split on lines, commas and spaces', () => {
    expect(listItems(' a , b\n\nc d，e ')).toEqual(['a', 'b', 'c d', 'e']);
  });
});

describe('validation (spec section 5)', () => {
  it('an empty form names the four required things', () => {
    const p = checkRule({ ...emptyForm(), name: 'x', types: [] }, 'zh_CN');
    const byField = Object.fromEntries(p.map((x) => [x.field, x.message]));
    expect(byField.types).toBe('至少选择一种转发类型');
    expect(byField.listenPorts).toBe('监听端口不能为空');
    expect(byField.targets).toBe('目标地址不能为空');
    expect(byField.targetPorts).toBe('目标端口不能为空');
  });

  it('in English too', () => {
    const p = checkRule({ ...emptyForm(), name: 'x', types: [] }, 'en_US');
    expect(p.map((x) => x.message)).toEqual(
      expect.arrayContaining(['Choose at least one forwarding type', 'Listening ports cannot be empty', 'Target addresses cannot be empty', 'Target ports cannot be empty']),
    );
  });

  it('70000, reversed ranges and mismatched counts use the contracts texts', () => {
    expect(checkRule({ ...good(), listenPorts: '70000' }, 'zh_CN')[0]).toMatchObject({ field: 'listenPorts', message: '监听端口：端口必须在 1-65535 之间', inline: '端口必须在 1-65535 之间' });
    expect(checkRule({ ...good(), listenPorts: '10-5' }, 'en_US')[0]!.message).toBe('Listening ports: a port range must not start above its end');
    const m = checkRule({ ...good(), listenPorts: '8000-8002', targetPorts: '80,81' }, 'en_US');
    expect(m).toHaveLength(1);
    expect(m).toMatchObject([
      { field: 'targetPorts', message: 'Target ports: target ports must be as many as the listening ports, or a single port', inline: 'target ports must be as many as the listening ports, or a single port' },
    ]);
  });

  it('a bad target is named by its entry; a bad listen address by the field', () => {
    expect(checkRule({ ...good(), targets: 'ok.lan\nbad host!' }, 'en_US')[0]).toMatchObject({
      field: 'targets',
      message: 'Target addresses, entry 2: is not a valid IP address or domain name',
      inline: 'entry 2: is not a valid IP address or domain name',
    });
    expect(checkRule({ ...good(), listenHost: '1.2.3' }, 'en_US')[0]!.field).toBe('listenHost');
    expect(checkRule({ ...good(), listenHost: '::1', types: ['tcp4'] }, 'en_US')[0]!.field).toBe('listenHost');
  });

  it('limits out of bounds, TLS without PEM, an empty whitelist', () => {
    const lim = checkRule({ ...good(), limits: { ...emptyForm().limits, udpPacketSize: 10, udpSessionTimeout: 0 } }, 'en_US');
    expect(lim.map((x) => x.field)).toEqual(['limits.udpSessionTimeout', 'limits.udpPacketSize']);
    expect(lim[1]!.message).toContain('64');
    const tls = checkRule({ ...good(), tls: { ...emptyForm().tls, listen: true } }, 'en_US');
    expect(tls.map((x) => x.field)).toEqual(['tls.cert', 'tls.key']);
    // A stored rule's key comes masked: the form passes its own check and sends the mask back (the daemon keeps the key).
    const masked = { ...emptyForm().tls, listen: true, cert: '-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----', key: SECRET_MASK };
    expect(checkRule({ ...good(), tls: masked }, 'en_US')).toEqual([]);
    expect(formToRule({ ...good(), tls: masked }).tls.key).toBe(SECRET_MASK);
    expect(checkRule({ ...good(), filterMode: 'whitelist' }, 'en_US')[0]).toMatchObject({ field: 'filter.list', message: 'Address list cannot be empty', inline: 'Address list cannot be empty' });
  });

  it('each field belongs to a tab', () => {
    expect(tabOf('targetPorts')).toBe('basic');
    expect(tabOf('limits.udpPacketSize')).toBe('limits');
    expect(tabOf('filter.list')).toBe('filter');
    expect(tabOf('tls.key')).toBe('tls');
  });
});

describe('live port feedback', () => {
  it('counts ports or says what is wrong', () => {
    expect(portFeedback('', 'en_US')).toBeNull();
    expect(portFeedback('80,443,1000-1010', 'en_US')).toEqual({ ok: true, count: 13, text: '13 ports' });
    expect(portFeedback('70000', 'zh_CN')).toEqual({ ok: false, text: '端口必须在 1-65535 之间' });
    expect(portFeedback('80,,81', 'en_US')!.ok).toBe(false);
  });

  it('target ports: paired, one for all, or mismatched', () => {
    expect(targetPortFeedback('8000-8002', '9000-9002', 'en_US')!.text).toBe('3 ports, paired with the listening ports');
    expect(targetPortFeedback('8000-8002', '80', 'en_US')!.text).toBe('1 port, for all 3 listening ports');
    const bad = targetPortFeedback('8000-8002', '80,81', 'en_US')!;
    expect(bad.ok).toBe(false);
    expect(bad.text).toContain('(3 ≠ 2)');
  });
});

describe('list texts', () => {
  it('listen address and figures', () => {
    expect(listenText({ listenHost: '', listenPorts: '80, 443' })).toBe('*:80,443');
    expect(listenText({ listenHost: '::1', listenPorts: '80' })).toBe('[::1]:80');
    const f = figuresText({ tcpConnections: 1, udpSessions: 0, bytesIn: 1234, bytesOut: 999, totalConnections: 3, refusedByLimit: 1, refusedByFilter: 2, listeners: 2, listenersWanted: 4 });
    expect(f).toEqual({ bytesIn: '1.23 KB', bytesOut: '999 B', listeners: '2/4', refused: 3 });
  });
});

describe('settings', () => {
  const defaults = ZPortforwardConfigure.parse({});
  it('sends the whole object', () => {
    const body = settingsToBody({ ...settingsToForm(defaults), connectTimeout: '9' });
    expect(Object.keys(body).sort()).toEqual(Object.keys(defaults).sort());
    expect(body.connectTimeout).toBe(9);
  });
  it('bounds are checked', () => {
    const p = checkSettings({ ...settingsToForm(defaults), udpPacketSize: 10, connectTimeout: '' }, 'en_US');
    expect(p.map((x) => x.field)).toEqual(['udpPacketSize', 'connectTimeout']);
  });
  it('a rule limit left blank follows the matching default', () => {
    const c = { ...defaults, ruleTcpMaxConnections: 7, udpSessionTimeout: 30 };
    expect(defaultLimit(c, 'tcpMaxConnections')).toBe(7);
    expect(defaultLimit(c, 'udpSessionTimeout')).toBe(30);
    expect(defaultLimit(undefined, 'udpPacketSize')).toBeUndefined();
  });
});
