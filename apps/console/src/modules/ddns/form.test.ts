import { DDNS_SYNC_STATUSES, SECRET_MASK, ZDdnsConfigure, ZDdnsTask, type DdnsTask } from '@lucky/contracts';
import { describe, expect, it } from 'vitest';
import { errorFor } from '../../kit/form/problems';
import {
  STATUS_COLOR,
  applyPreset,
  checkSettings,
  checkTask,
  configureToForm,
  emptyForm,
  families,
  formToConfigure,
  formToTask,
  hiddenInEasyMode,
  intervalPresetLabel,
  switchProvider,
  taskToForm,
  type TaskForm,
} from './form';

function callbackForm(): TaskForm {
  const f = emptyForm('callback');
  f.name = 'home';
  f.domains = 'home.example.com\n\n www.example.com ';
  f.callback.url = 'http://127.0.0.1:8080/u?ip=#{ip}';
  f.ipv4.type = 'command';
  f.ipv4.command = 'echo 192.0.2.10';
  return f;
}

/** The form's problem, one at a time as the form shows it. */
const check = (f: TaskForm, lang: 'zh_CN' | 'en_US' = 'zh_CN') => checkTask(f, lang)[0] ?? null;

describe('ddns form helpers', () => {
  it('a new form holds the schema defaults in easy mode', () => {
    expect(emptyForm()).toMatchObject({
      mode: 'easy',
      provider: 'cloudflare',
      name: '',
      domains: '',
      forceSync: 3600,
      httpTimeout: 20,
      ipv4: { type: 'url' },
      ipv6: { odhcpdFile: '/tmp/hosts/odhcpd' },
    });
  });

  it('turns text areas into lists and back', () => {
    const task = formToTask(callbackForm());
    expect(task.domains).toEqual(['home.example.com', 'www.example.com']);
    expect(ZDdnsTask.safeParse(task).success).toBe(true);
    const again = taskToForm(ZDdnsTask.parse(task));
    expect(again.domains).toBe('home.example.com\nwww.example.com');
    expect(formToTask(again)).toEqual(ZDdnsTask.parse(task));
  });

  it('keeps an unnumber as NaN so that validation names the field', () => {
    const f = callbackForm();
    f.mode = 'customized';
    f.forceSync = '';
    const p = check(f);
    expect(p?.path).toBe('forceSync');
    expect(p?.summary).toContain('forceSync');
  });

  it('empty domain list: spec wording on the field, contracts summary naming it', () => {
    const f = callbackForm();
    f.domains = '  \n';
    const zh = check(f);
    expect(zh).toMatchObject({ path: 'domains', message: '域名列表不能为空' });
    expect(zh?.summary).toBe('参数 domains 错误：不能为空');
    const en = check(f, 'en_US');
    expect(en?.message).toBe('Domain list cannot be empty');
    expect(errorFor(checkTask(f, 'zh_CN'), 'domains')).toBe('域名列表不能为空');
    expect(errorFor(checkTask(f, 'zh_CN'), 'name')).toBeUndefined();
  });

  it('section 5 messages: credentials by the provider label, interface, callback, proxies, webhook', () => {
    const f = emptyForm('alidns');
    f.name = 'a';
    f.domains = 'example.com';
    expect(check(f)?.message).toBe('AccessKey ID不能为空');
    f.credentials.id = 'id';
    expect(check(f)?.message).toBe('AccessKey Secret不能为空');
    f.credentials.secret = 's';
    f.ipv4.type = 'interface';
    expect(check(f)).toMatchObject({ path: 'ipv4.interface', message: '网卡不能为空' });
    f.ipv4.interface = 'eth0';
    f.proxy.type = 'socks5';
    expect(check(f)?.message).toBe('代理地址不能为空');
    f.proxy.address = '127.0.0.1:1080';
    f.webhook.enable = true;
    expect(check(f)?.message).toBe('Webhook 地址不能为空');
    f.webhook.url = 'http://127.0.0.1/h';
    f.webhook.proxy.type = 'http';
    expect(check(f)?.message).toBe('Webhook 代理地址不能为空');
    f.webhook.proxy.address = '127.0.0.1:3128';
    expect(check(f)).toBeNull();

    const c = callbackForm();
    c.callback.url = '';
    expect(check(c)?.message).toBe('回调地址不能为空');
    c.callback.url = 'http://x/';
    c.callback.successCheck = { enable: true, text: '' };
    expect(check(c)?.message).toBe('回调成功返回内容不能为空');
    c.callback.successCheck.enable = false;
    c.resolverCheck = { enable: true, servers: '1.1.1.1\nnot-an-ip' };
    expect(check(c)).toMatchObject({ path: 'resolverCheck.servers.1', message: 'DNS 服务器列表第 2 行：不是有效的 IP 地址' });
  });

  it('bounds use the contracts range messages', () => {
    const f = callbackForm();
    f.forceSync = 59;
    expect(check(f)?.message).toBe('强制同步间隔必须在 60-3600 秒之间');
    f.forceSync = 60;
    f.httpTimeout = 61;
    expect(check(f, 'en_US')?.message).toBe('HTTP client timeout must be between 3 and 60 seconds');
  });

  it('knows which fields easy mode hides', () => {
    const shown = ['domains', 'ipv4.command', 'webhook.url', 'callback.url'];
    const hidden = ['forceSync', 'proxy.address', 'webhook.proxy.address', 'callback.successCheck.text', 'ipv6.regex'];
    expect([...shown, ...hidden].filter(hiddenInEasyMode)).toEqual(hidden);
  });

  it('families follow the record type', () => {
    expect(families('A')).toEqual(['ipv4']);
    expect(families('AAAA')).toEqual(['ipv6']);
    expect(families('both')).toEqual(['ipv4', 'ipv6']);
  });

  it('presets replace their own fields only', () => {
    const w = emptyForm().webhook;
    w.enable = true;
    w.proxy.type = 'http';
    const next = applyPreset(w, 'dingtalk', { url: 'https://d/x', method: 'POST', headers: ['Content-Type: application/json'], successCheck: { enable: true, text: '"errcode":0' } });
    expect(next).toMatchObject({ enable: true, preset: 'dingtalk', url: 'https://d/x', headers: 'Content-Type: application/json', successCheck: { enable: true } });
    expect(next.proxy.type).toBe('http');
    expect(applyPreset(next, 'custom', {})).toMatchObject({ preset: 'custom', url: 'https://d/x' });
    const c = applyPreset(emptyForm('callback').callback, 'noip', { url: 'https://u@x/?ip=#{ip}', method: 'GET' });
    expect(c).toMatchObject({ preset: 'noip', url: 'https://u@x/?ip=#{ip}', method: 'GET' });
  });

  it('switching provider clears credentials, going back restores the saved (masked) ones', () => {
    const saved = ZDdnsTask.parse({ name: 'x', provider: 'alidns', domains: ['example.com'], credentials: { id: 'AK', secret: SECRET_MASK }, recordType: 'both' }) as DdnsTask;
    const f = taskToForm(saved);
    const other = switchProvider(f, 'namecheap', saved);
    expect(other.credentials).toMatchObject({ id: '', secret: '' });
    expect(other.recordType).toBe('A'); // Namecheap has no IPv6
    const back = switchProvider(other, 'alidns', saved);
    expect(back.credentials).toMatchObject({ id: 'AK', secret: SECRET_MASK });
  });

  it('a stored mask goes back unchanged', () => {
    const saved = ZDdnsTask.parse({ name: 'x', provider: 'cloudflare', domains: ['example.com'], credentials: { secret: SECRET_MASK } }) as DdnsTask;
    expect(formToTask(taskToForm(saved)).credentials.secret).toBe(SECRET_MASK);
  });

  it('settings: presets or a custom interval, checked by the contracts', () => {
    const c = ZDdnsConfigure.parse({});
    const f = configureToForm(c);
    expect(f.intervalChoice).toBe('custom'); // the default 300 s is not a preset
    expect(formToConfigure(f).interval).toBe(300);
    expect(formToConfigure({ ...f, intervalChoice: '600' }).interval).toBe(600);
    const p = checkSettings({ ...f, interval: 29 }, 'zh_CN')[0];
    expect(p?.message).toBe('检测间隔必须在 30-3600 秒之间');
    const pw = checkSettings({ ...f, webhook: { ...f.webhook, enable: true } }, 'zh_CN')[0];
    expect(pw).toMatchObject({ path: 'webhook.url', message: 'Webhook 地址不能为空' });
    expect(intervalPresetLabel(60)).toEqual({ id: 'intervalMinutes', n: 1 });
    expect(intervalPresetLabel(3600)).toEqual({ id: 'intervalHours', n: 1 });
    expect(intervalPresetLabel(45)).toEqual({ id: 'intervalSeconds', n: 45 });
  });

  it('every status has a colour', () => {
    for (const s of DDNS_SYNC_STATUSES) expect(STATUS_COLOR[s]).toBeTruthy();
  });
});
