import { ZStunConfigure, ZStunRule, type StunFigures } from '@lucky/contracts';
import { describe, expect, it } from 'vitest';
import { stunTextIn } from './i18n';
import {
  behaviourText,
  checkRule,
  checkSettings,
  emptyForm,
  figuresText,
  formToRule,
  localPortText,
  settingsToBody,
  settingsToForm,
  shownFields,
  tabOf,
  toForm,
  type RuleForm,
} from './form';

const forward = (): RuleForm => ({ ...emptyForm(), name: 'nas', targetHost: '192.168.1.10', targetPort: 8080 });
const none = (): RuleForm => ({ ...emptyForm(), name: 'router', mode: 'none' });

const figures = (over: Partial<StunFigures> = {}): StunFigures => ({
  publicAddr: null,
  localPort: null,
  server: null,
  lastChange: null,
  lastCheck: null,
  changes: 0,
  mappings: [],
  connections: 0,
  sessions: 0,
  totalConnections: 0,
  bytesIn: 0,
  bytesOut: 0,
  refusedByFilter: 0,
  refusedByLimit: 0,
  ...over,
});

describe('form ↔ rule', () => {
  it('a new form has the contracts defaults; blank interval and limits mean the module default', () => {
    const r = formToRule(forward());
    expect(ZStunRule.safeParse(r).success).toBe(true);
    expect(r).toMatchObject({ protocol: 'udp', localPort: 0, mode: 'forward', targetPort: 8080, keepaliveInterval: null, stunServers: [], ddnsTasks: [] });
    expect(r.limits).toEqual({ tcpMaxConnections: null, udpMaxSessions: null, udpSessionTimeout: null, udpPacketSize: null, tcpIdleTimeout: null });
  });

  it('round-trips every field through toForm', () => {
    const rule = ZStunRule.parse({
      name: 'full',
      enable: false,
      protocol: 'tcp',
      listenHost: '192.168.1.2',
      localPort: 40000,
      targetHost: 'nas.lan',
      targetPort: 443,
      limits: { tcpMaxConnections: 10 },
      filter: { mode: 'blacklist', list: ['10.0.0.0/8', '192.0.2.1'] },
      stunServers: ['127.0.0.1:3478', 'stun.example.com'],
      keepaliveInterval: 25,
      keepaliveUrl: 'http://127.0.0.1/',
      upnp: { enable: true, gatewayUrl: 'http://192.168.1.1:5000/rootDesc.xml', lease: 0 },
      natpmp: { enable: true, gateway: '192.168.1.1', lifetime: 7200 },
      webhook: { enable: true, url: 'http://127.0.0.1/hook?addr=#{addr}', method: 'GET', headers: ['X-A: 1'] },
      command: { enable: true, line: 'echo $LUCKY_STUN_ADDR', timeout: 5 },
      ddnsTasks: ['t1', 't2'],
      note: 'n',
    });
    const f = toForm(rule);
    expect(f.stunServers).toBe('127.0.0.1:3478\nstun.example.com');
    expect(f.webhook.headers).toBe('X-A: 1');
    expect(f.filterList).toBe('10.0.0.0/8\n192.0.2.1');
    expect(formToRule(f)).toEqual(rule);
  });

  it('numbers as typed: blank interval → null, text → NaN so the field is named', () => {
    expect(formToRule({ ...forward(), keepaliveInterval: ' ' }).keepaliveInterval).toBeNull();
    expect(formToRule({ ...forward(), keepaliveInterval: '40' }).keepaliveInterval).toBe(40);
    expect(formToRule({ ...forward(), localPort: 'x' }).localPort).toBeNaN();
    expect(checkRule({ ...forward(), localPort: 'x' }, 'en_US')[0]!.field).toBe('localPort');
  });

  it('mode none: no target needed, the filter is off; the keepalive URL is TCP only', () => {
    const r = formToRule({ ...none(), filterMode: 'whitelist', filterList: '', targetPort: 'junk' });
    expect(r.filter).toEqual({ mode: 'off', list: [] });
    expect(r.targetPort).toBe(0);
    expect(checkRule({ ...none(), filterMode: 'whitelist' }, 'en_US')).toEqual([]);
    expect(formToRule({ ...none(), keepaliveUrl: 'http://x/' }).keepaliveUrl).toBe('');
    expect(formToRule({ ...none(), protocol: 'tcp', keepaliveUrl: ' http://x/ ' }).keepaliveUrl).toBe('http://x/');
  });

  it('what the mode and the protocol show', () => {
    expect(shownFields({ mode: 'forward', protocol: 'udp' })).toEqual({ target: true, limits: true, filter: true, keepaliveUrl: false });
    expect(shownFields({ mode: 'none', protocol: 'tcp' })).toEqual({ target: false, limits: false, filter: false, keepaliveUrl: true });
  });
});

describe('validation', () => {
  it('forward needs a target; the messages name the fields', () => {
    const p = checkRule({ ...emptyForm(), name: 'x' }, 'zh_CN');
    expect(p.map((x) => x.field)).toEqual(['targetHost', 'targetPort']);
    expect(p[0]!.message).toBe('目标地址不能为空');
    expect(checkRule({ ...emptyForm(), name: '' }, 'en_US')[0]!.message).toBe('Rule name cannot be empty');
  });

  it('servers, keepalive URL, gateways, command, webhook', () => {
    const p = checkRule(
      {
        ...forward(),
        protocol: 'tcp',
        stunServers: '127.0.0.1:3478\nbad host!',
        keepaliveUrl: 'https://x/',
        natpmp: { enable: true, gateway: 'router', lifetime: 3600 },
        command: { enable: true, line: ' ', timeout: 30 },
        webhook: { ...forward().webhook, enable: true, url: '' },
      },
      'en_US',
    );
    expect(p.map((x) => x.field)).toEqual(['stunServers', 'keepaliveUrl', 'natpmp.gateway', 'command.line', 'webhook.url']);
    expect(p[0]!.message).toMatch(/^STUN servers, entry 2: /);
    expect(p.map((x) => tabOf(x.path))).toEqual(['stun', 'stun', 'mapping', 'notify', 'notify']);
  });

  it('each field belongs to a tab', () => {
    expect(tabOf('targetPort')).toBe('basic');
    expect(tabOf('limits.udpPacketSize')).toBe('forward');
    expect(tabOf('filter.list')).toBe('forward');
    expect(tabOf('upnp.gatewayUrl')).toBe('mapping');
    expect(tabOf('ddnsTasks')).toBe('notify');
  });
});

describe('list texts', () => {
  const en = stunTextIn('en_US');
  it('the local port: the asked one, or the one the system chose for 0', () => {
    expect(localPortText({ localPort: 5000, stun: figures() }, en)).toEqual({ port: '5000', hint: '' });
    expect(localPortText({ localPort: 0, stun: figures({ localPort: 41234 }) }, en)).toEqual({ port: '41234', hint: 'automatic, now 41234' });
    expect(localPortText({ localPort: 0, stun: figures() }, en)).toEqual({ port: '0', hint: 'automatic' });
  });
  it('figures and NAT behaviours', () => {
    expect(figuresText(figures({ bytesIn: 1234, bytesOut: 5, refusedByFilter: 2, refusedByLimit: 1 }))).toEqual({ bytesIn: '1.23 KB', bytesOut: '5 B', refused: 3 });
    expect(behaviourText('endpointIndependent', 'en_US')).toBe('endpoint independent');
    expect(behaviourText('addressAndPortDependent', 'zh_CN')).toBe('与目标地址和端口有关');
  });
});

describe('settings', () => {
  const defaults = ZStunConfigure.parse({});
  it('sends the whole object', () => {
    const body = settingsToBody({ ...settingsToForm(defaults), stunServers: '127.0.0.1:3478\n\n127.0.0.2', logLines: '10' });
    expect(Object.keys(body).sort()).toEqual(Object.keys(defaults).sort());
    expect(body).toMatchObject({ stunServers: ['127.0.0.1:3478', '127.0.0.2'], logLines: 10 });
  });
  it('bounds are checked (latest logs shown 1-64, spec section 5)', () => {
    const p = checkSettings({ ...settingsToForm(defaults), stunServers: '', logLines: 65, keepaliveUrl: 'ftp://x' }, 'en_US');
    expect(p.map((x) => x.field)).toEqual(['stunServers', 'keepaliveUrl', 'logLines']);
    expect(p[0]!.message).toBe('Default STUN servers cannot be empty');
  });
});
