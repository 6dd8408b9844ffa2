/**
 * HTTP calls the daemon makes on the user's behalf, shared by every module that sends them: the
 * proxy they go through, and webhooks (DDNS, STUN, scheduled tasks, ACME notify with these).
 */
import { z } from 'zod';
import { msgKey } from './i18n.js';
import { splitLines } from './lines.js';
import { parseHostPort } from './net.js';
import { secret } from './secrets.js';

/** A list that may come as one-per-line text (the console's textarea) or as an array. */
export const ZLines = z.preprocess(splitLines, z.array(z.string().trim().max(512)).max(200));
/**
 * `Name: value` lines that may carry tokens: each value is a secret (masked as `Name: ******`, kept
 * when sent back masked, left out of backups without secrets) bound to the fields named (the URL
 * they are sent to), so they never go somewhere new without being typed again.
 */
export const secretHeaderLines = (boundTo: readonly string[]) =>
  z.preprocess(splitLines, z.array(secret(z.string().trim().max(512), { header: true, boundTo })).max(200));

export const ZHttpMethod = z.enum(['GET', 'POST', 'PUT', 'PATCH']);

export const ZSuccessCheck = z.object({
  enable: z.boolean().default(false),
  /** The answer body must contain it. */
  text: z.string().max(1024).default(''),
});

export const ZHttpProxy = z.object({
  type: z.enum(['none', 'http', 'https', 'socks5']).default('none'),
  /** host:port */
  address: z.string().trim().max(256).default(''),
  user: z.string().max(256).default(''),
  password: secret(z.string().max(256)).default(''),
});
export type HttpProxy = z.infer<typeof ZHttpProxy>;
export const NO_PROXY: HttpProxy = { type: 'none', address: '', user: '', password: '' };

export const WEBHOOK_PRESETS = ['custom', 'bark', 'serverchan', 'dingtalk', 'feishu', 'wecom', 'telegram'] as const;
export type WebhookPreset = (typeof WEBHOOK_PRESETS)[number];

/** A webhook: `#{name}` in the URL, headers and body is filled with the caller's values. */
export const ZWebhook = z.object({
  enable: z.boolean().default(false),
  preset: z.enum(WEBHOOK_PRESETS).default('custom'),
  url: z.string().trim().max(2048).default(''),
  method: ZHttpMethod.default('POST'),
  /** One `Name: value` a line. */
  headers: ZLines.default([]),
  body: z.string().max(16384).default(''),
  successCheck: ZSuccessCheck.default({ enable: false, text: '' }),
  proxy: ZHttpProxy.default(NO_PROXY),
});
export type Webhook = z.infer<typeof ZWebhook>;

export function checkProxy(p: HttpProxy, path: (string | number)[], ctx: z.RefinementCtx): void {
  if (p.type === 'none') return;
  if (p.address === '') ctx.addIssue({ code: 'custom', path: [...path, 'address'], message: msgKey('cannotBeEmpty') });
  else if (!parseHostPort(p.address, 0)) ctx.addIssue({ code: 'custom', path: [...path, 'address'], message: msgKey('invalidHostPort') });
}

export function checkHeaders(h: string[], path: (string | number)[], ctx: z.RefinementCtx): void {
  h.forEach((line, i) => {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+\s*:/.test(line)) {
      ctx.addIssue({ code: 'custom', path: [...path, i], message: msgKey('invalidHeaderLine') });
    }
  });
}

/** The checks between a switched-on webhook's fields. */
export function checkWebhook(w: Webhook, path: (string | number)[], ctx: z.RefinementCtx): void {
  if (!w.enable) return;
  if (w.url === '') ctx.addIssue({ code: 'custom', path: [...path, 'url'], message: msgKey('cannotBeEmpty') });
  else if (!/^https?:\/\/\S+$/i.test(w.url)) ctx.addIssue({ code: 'custom', path: [...path, 'url'], message: msgKey('invalidUrl') });
  if (w.successCheck.enable && w.successCheck.text === '') {
    ctx.addIssue({ code: 'custom', path: [...path, 'successCheck', 'text'], message: msgKey('cannotBeEmpty') });
  }
  if (w.body.trim() !== '' && w.method !== 'GET' && /^\s*[[{]/.test(w.body)) {
    // A JSON-looking body must be JSON once the variables are filled with harmless values.
    const probe = w.body.replace(/#\{\w+\}/g, 'x');
    try {
      JSON.parse(probe);
    } catch {
      ctx.addIssue({ code: 'custom', path: [...path, 'body'], message: msgKey('invalidJsonBody') });
    }
  }
  checkHeaders(w.headers, [...path, 'headers'], ctx);
  checkProxy(w.proxy, [...path, 'proxy'], ctx);
}
