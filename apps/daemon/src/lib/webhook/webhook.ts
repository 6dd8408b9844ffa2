/**
 * Webhooks: a request built from the user's template, `#{name}` filled with the caller's values
 * (percent-encoded in the URL, JSON-escaped in a JSON body), judged by its status and, when asked,
 * by a text the answer must contain. Presets for common push services wrap the caller's own message.
 */
import type { Msg, Webhook, WebhookPreset } from '@lucky/contracts';
import { headerLines, type HttpFn } from '../http/request.js';
import { msgOf } from '../msgerror.js';

/** The caller's values. A list gives `#{name}` comma-separated and `#{nameLine}` one per line. */
export type WebhookValues = Readonly<Record<string, string | number | readonly string[]>>;

export function expandValues(values: WebhookValues): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) {
    if (Array.isArray(v)) {
      out[k] = v.join(',');
      out[`${k}Line`] = v.join('\n');
    } else out[k] = String(v);
  }
  return out;
}

/** Fills a template; in a JSON body values are JSON-escaped, in a URL percent-encoded. Unknown names stay. */
export function fillWebhook(template: string, values: Record<string, string>, how: 'url' | 'json' | 'text'): string {
  return template.replace(/#\{(\w+)\}/g, (m, k: string) => {
    if (!(k in values)) return m;
    const s = values[k]!;
    if (how === 'url') return encodeURIComponent(s);
    if (how === 'json') return JSON.stringify(s).slice(1, -1);
    return s;
  });
}

/** What a push preset carries: a title and a text, both templates of the caller's values. */
export interface WebhookMessage {
  title: string;
  text: string;
}

/** Inside a JSON string of a body: the template escaped, its `#{names}` kept. */
const inJson = (t: string) => JSON.stringify(t).slice(1, -1);
/** As a URL path segment: the literal parts encoded, the `#{names}` kept (filled encoded later). */
const inPath = (t: string) =>
  t
    .split(/(#\{\w+\})/)
    .map((part, i) => (i % 2 ? part : encodeURIComponent(part)))
    .join('');

/** Common push services, ready but for the user's key or token (the `YOUR_...` parts). */
export function webhookPresets(m: WebhookMessage): Record<WebhookPreset, Partial<Webhook>> {
  const json = (body: string, ok: string): Partial<Webhook> => ({
    method: 'POST',
    headers: ['Content-Type: application/json'],
    body,
    successCheck: { enable: true, text: ok },
  });
  return {
    custom: {},
    bark: {
      url: `https://api.day.app/YOUR_KEY/${inPath(m.title)}/${inPath(m.text)}`,
      method: 'GET',
      body: '',
      successCheck: { enable: true, text: '"code":200' },
    },
    serverchan: { url: 'https://sctapi.ftqq.com/YOUR_SENDKEY.send', ...json(`{"title":"${inJson(m.title)}","desp":"${inJson(m.text)}"}`, '"code":0') },
    dingtalk: {
      url: 'https://oapi.dingtalk.com/robot/send?access_token=YOUR_TOKEN',
      ...json(`{"msgtype":"text","text":{"content":"${inJson(m.text)}"}}`, '"errcode":0'),
    },
    feishu: {
      url: 'https://open.feishu.cn/open-apis/bot/v2/hook/YOUR_TOKEN',
      ...json(`{"msg_type":"text","content":{"text":"${inJson(m.text)}"}}`, '"code":0'),
    },
    wecom: {
      url: 'https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=YOUR_KEY',
      ...json(`{"msgtype":"text","text":{"content":"${inJson(m.text)}"}}`, '"errcode":0'),
    },
    telegram: {
      url: 'https://api.telegram.org/botYOUR_TOKEN/sendMessage',
      ...json(`{"chat_id":"YOUR_CHAT_ID","text":"${inJson(m.text)}"}`, '"ok":true'),
    },
  };
}

export interface WebhookResult {
  success: boolean;
  /** The answer's HTTP status; 0 when none came. */
  status: number;
  /** The start of the answer. */
  body: string;
  /** What happened, for logs and the test action. */
  reason: Msg;
}

export async function callWebhook(w: Webhook, values: WebhookValues, http: HttpFn): Promise<WebhookResult> {
  const vals = expandValues(values);
  const headers = Object.fromEntries(Object.entries(headerLines(w.headers)).map(([k, v]) => [k, fillWebhook(v, vals, 'text')]));
  const json = /^\s*[[{]/.test(w.body);
  const body = w.method === 'GET' || w.body === '' ? undefined : fillWebhook(w.body, vals, json ? 'json' : 'text');
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    headers['content-type'] = json ? 'application/json' : 'application/x-www-form-urlencoded';
  }
  try {
    const res = await http({ method: w.method, url: fillWebhook(w.url, vals, 'url'), headers, ...(body !== undefined ? { body } : {}) });
    const text = res.text.slice(0, 2000);
    if (res.status < 200 || res.status > 299) return { success: false, status: res.status, body: text, reason: { key: 'httpStatus', vars: { status: res.status } } };
    if (w.successCheck.enable && !res.text.includes(w.successCheck.text)) {
      return { success: false, status: res.status, body: text, reason: { key: 'webhookNoText', vars: { text: w.successCheck.text } } };
    }
    return { success: true, status: res.status, body: text, reason: { key: 'webhookOk', vars: { status: res.status } } };
  } catch (err) {
    return { success: false, status: 0, body: '', reason: msgOf(err) };
  }
}
