/**
 * Callback: the user's own URL, with `#{ip}`, `#{domain}`, `#{recordType}`, `#{ttl}` filled in the
 * URL (encoded), headers and body; success when the answer is 2xx (and holds the success text if checked).
 */
import { CALLBACK_PRESETS, type DdnsCallback } from '@lucky/contracts';
import { MsgError } from '../../msgerror.js';
import { excerpt, headerLines } from '../../http/request.js';
import { httpError, type DnsProvider } from './types.js';

export function fill(template: string, vars: Record<string, string>, encode = false): string {
  return template.replace(/#\{(\w+)\}/g, (m, k: string) => (k in vars ? (encode ? encodeURIComponent(vars[k]!) : vars[k]!) : m));
}

/** Common dynamic DNS services as callback presets (credentials go in the URL). */
export const CALLBACK_PRESET_VALUES: Record<(typeof CALLBACK_PRESETS)[number], Partial<DdnsCallback>> = {
  custom: {},
  he: { url: 'https://USER:PASSWORD@dyn.dns.he.net/nic/update?hostname=#{domain}&myip=#{ip}', method: 'GET', successCheck: { enable: false, text: '' } },
  noip: { url: 'https://USER:PASSWORD@dynupdate.no-ip.com/nic/update?hostname=#{domain}&myip=#{ip}', method: 'GET', successCheck: { enable: false, text: '' } },
  dynu: { url: 'https://api.dynu.com/nic/update?hostname=#{domain}&myip=#{ip}&password=PASSWORD_MD5', method: 'GET', successCheck: { enable: false, text: '' } },
  freedns: { url: 'https://sync.afraid.org/u/TOKEN/?ip=#{ip}', method: 'GET', successCheck: { enable: false, text: '' } },
  cloudxns: { url: 'https://www.cloudxns.net/api2/ddns', method: 'POST', body: '{"domain":"#{domain}","ip":"#{ip}","line_id":"1"}', successCheck: { enable: false, text: '' } },
};

export const callback: DnsProvider = {
  name: 'callback',
  base: '',
  async set(ctx, want) {
    const cb = ctx.callback;
    if (!cb) throw new MsgError({ key: 'dnsCallbackMissing' });
    const vars = { ip: want.value, domain: want.domain.full, recordType: want.type, ttl: String(want.ttl) };
    const headers = Object.fromEntries(Object.entries(headerLines(cb.headers)).map(([k, v]) => [k, fill(v, vars)]));
    const body = cb.method === 'GET' || cb.body === '' ? undefined : fill(cb.body, vars);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['content-type'] = /^\s*[[{]/.test(body) ? 'application/json' : 'application/x-www-form-urlencoded';
    }
    const res = await ctx.http({ method: cb.method, url: fill(cb.url, vars, true), headers, ...(body !== undefined ? { body } : {}) });
    if (res.status < 200 || res.status > 299) throw httpError(res, 'callback', excerpt(res, 200));
    if (cb.successCheck.enable && !res.text.includes(cb.successCheck.text)) {
      throw new MsgError({ key: 'dnsCallbackNoText', vars: { text: cb.successCheck.text, detail: excerpt(res, 200) } });
    }
    return 'updated';
  },
};
