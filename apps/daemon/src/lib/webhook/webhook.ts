/**
 * Webhooks after a sync: variables `#{ipAddr}`, `#{successDomains}`, `#{failedDomains}`,
 * `#{successDomainsLine}`, `#{failedDomainsLine}`, `#{time}`; presets for common push services.
 */
import { WEBHOOK_PRESETS, type DdnsWebhook } from '@lucky/contracts';
import { formatTime } from '../../core/time.js';
import { headerLines, type HttpFn } from './http.js';

export interface WebhookVars {
  ipAddr: string;
  successDomains: string[];
  failedDomains: string[];
  time?: number;
}

const TEXT = 'Lucky DDNS #{time}\\nIP: #{ipAddr}\\nOK: #{successDomainsLine}\\nFailed: #{failedDomainsLine}';

export const WEBHOOK_PRESET_VALUES: Record<(typeof WEBHOOK_PRESETS)[number], Partial<DdnsWebhook>> = {
  custom: {},
  bark: {
    url: 'https://api.day.app/YOUR_KEY/Lucky%20DDNS/#{ipAddr}%20#{successDomains}',
    method: 'GET',
    body: '',
    successCheck: { enable: true, text: '"code":200' },
  },
  serverchan: {
    url: 'https://sctapi.ftqq.com/YOUR_SENDKEY.send',
    method: 'POST',
    headers: ['Content-Type: application/json'],
    body: `{"title":"Lucky DDNS #{ipAddr}","desp":"${TEXT}"}`,
    successCheck: { enable: true, text: '"code":0' },
  },
  dingtalk: {
    url: 'https://oapi.dingtalk.com/robot/send?access_token=YOUR_TOKEN',
    method: 'POST',
    headers: ['Content-Type: application/json'],
    body: `{"msgtype":"text","text":{"content":"${TEXT}"}}`,
    successCheck: { enable: true, text: '"errcode":0' },
  },
  feishu: {
    url: 'https://open.feishu.cn/open-apis/bot/v2/hook/YOUR_TOKEN',
    method: 'POST',
    headers: ['Content-Type: application/json'],
    body: `{"msg_type":"text","content":{"text":"${TEXT}"}}`,
    successCheck: { enable: true, text: '"code":0' },
  },
  wecom: {
    url: 'https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=YOUR_KEY',
    method: 'POST',
    headers: ['Content-Type: application/json'],
    body: `{"msgtype":"text","text":{"content":"${TEXT}"}}`,
    successCheck: { enable: true, text: '"errcode":0' },
  },
  telegram: {
    url: 'https://api.telegram.org/botYOUR_TOKEN/sendMessage',
    method: 'POST',
    headers: ['Content-Type: application/json'],
    body: `{"chat_id":"YOUR_CHAT_ID","text":"${TEXT}"}`,
    successCheck: { enable: true, text: '"ok":true' },
  },
};

function values(v: WebhookVars): Record<string, string> {
  return {
    ipAddr: v.ipAddr,
    successDomains: v.successDomains.join(','),
    failedDomains: v.failedDomains.join(','),
    successDomainsLine: v.successDomains.join('\n'),
    failedDomainsLine: v.failedDomains.join('\n'),
    time: formatTime(v.time ?? Date.now()),
  };
}

/** Fills a template; in a JSON body values are JSON-escaped, in a URL percent-encoded. */
export function fillWebhook(template: string, v: WebhookVars, how: 'url' | 'json' | 'text'): string {
  const vals = values(v);
  return template.replace(/#\{(\w+)\}/g, (m, k: string) => {
    if (!(k in vals)) return m;
    const s = vals[k]!;
    if (how === 'url') return encodeURIComponent(s);
    if (how === 'json') return JSON.stringify(s).slice(1, -1);
    return s;
  });
}

export interface WebhookResult {
  success: boolean;
  status: number;
  body: string;
  message: string;
}

export async function callWebhook(w: DdnsWebhook, v: WebhookVars, http: HttpFn): Promise<WebhookResult> {
  const headers = headerLines(w.headers);
  const json = /^\s*[[{]/.test(w.body);
  const body = w.method === 'GET' || w.body === '' ? undefined : fillWebhook(w.body, v, json ? 'json' : 'text');
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    headers['content-type'] = json ? 'application/json' : 'application/x-www-form-urlencoded';
  }
  try {
    const res = await http({ method: w.method, url: fillWebhook(w.url, v, 'url'), headers, ...(body !== undefined ? { body } : {}) });
    const text = res.text.slice(0, 2000);
    let success = res.status >= 200 && res.status <= 299;
    let message = success ? 'ok' : `HTTP ${res.status}`;
    if (success && w.successCheck.enable && !res.text.includes(w.successCheck.text)) {
      success = false;
      message = `the answer does not contain "${w.successCheck.text}"`;
    }
    return { success, status: res.status, body: text, message };
  } catch (err) {
    return { success: false, status: 0, body: '', message: (err as Error).message };
  }
}
