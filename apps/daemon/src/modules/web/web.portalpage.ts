/**
 * The pages a rule with Lucky login serves itself: the sign-in form, "signed in as", "signed out".
 * Plain HTML with its style inline and no script, in the reader's language (Accept-Language), sent
 * with a policy that allows nothing from elsewhere and no framing.
 */
import type { ServerResponse } from 'node:http';
import { message, PORTAL_PATH, type Lang, type MessageKey, type MsgValue } from '@lucky/contracts/runtime';

const STYLE =
  'body{font:15px/1.5 system-ui,sans-serif;background:#f4f5f7;color:#222;display:flex;min-height:100vh;margin:0;align-items:center;justify-content:center}' +
  'main{background:#fff;border-radius:10px;box-shadow:0 2px 12px #0002;padding:28px 32px;width:320px}h1{font-size:20px;margin:0 0 16px}' +
  'label{display:block;margin:10px 0 4px;font-weight:600}input{box-sizing:border-box;width:100%;padding:8px;border:1px solid #bbb;border-radius:6px;font:inherit}' +
  'small{color:#666}button{margin-top:18px;width:100%;padding:9px;border:0;border-radius:6px;background:#2563eb;color:#fff;font:inherit;cursor:pointer}' +
  'p.error{color:#b91c1c;margin:0 0 8px}p.note{margin:14px 0 0}a.sso{display:block;text-align:center;padding:8px;border:1px solid #2563eb;border-radius:6px;color:#2563eb;text-decoration:none}';

const POLICY = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface PageOptions {
  lang: Lang;
  status: number;
  /** Set-Cookie values. */
  cookies?: string[];
  headers?: Record<string, string>;
}

function send(res: ServerResponse, o: PageOptions, title: string, body: string): void {
  if (res.headersSent) return void res.destroy();
  const html = `<!doctype html><html lang="${o.lang === 'en_US' ? 'en' : 'zh-CN'}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${esc(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>\n`;
  res.writeHead(o.status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': Buffer.byteLength(html),
    'Cache-Control': 'no-store',
    'Content-Security-Policy': POLICY,
    'X-Frame-Options': 'DENY',
    // Not no-referrer: with it, browsers send `Origin: null` on the form's POST, which the form check refuses.
    'Referrer-Policy': 'same-origin',
    ...(o.cookies?.length ? { 'Set-Cookie': o.cookies } : {}),
    ...o.headers,
  });
  res.end(html);
}

const t = (lang: Lang, key: MessageKey, vars?: Record<string, MsgValue>) => esc(message(lang, key, vars));

export interface LoginForm {
  /** The anti-forgery value the form carries (its cookie holds the same). */
  form: string;
  /** Where to go once signed in (a path of this site). */
  rd: string;
  user?: string;
  error?: { key: MessageKey; vars?: Record<string, MsgValue> };
  /** Single sign-on's button: its label (the provider's name) and where it goes. */
  sso?: { label: string; href: string };
}

export function loginPage(res: ServerResponse, o: PageOptions, f: LoginForm): void {
  const { lang } = o;
  const error = f.error ? `<p class="error" role="alert">${t(lang, f.error.key, f.error.vars)}</p>` : '';
  send(
    res,
    o,
    message(lang, 'portalPageTitle'),
    `<h1>${t(lang, 'portalPageTitle')}</h1>${error}<form method="post" action="${PORTAL_PATH}login">` +
      `<input type="hidden" name="form" value="${esc(f.form)}"><input type="hidden" name="rd" value="${esc(f.rd)}">` +
      `<label for="user">${t(lang, 'portalPageUser')}</label><input id="user" name="user" autocomplete="username" required autofocus value="${esc(f.user ?? '')}">` +
      `<label for="password">${t(lang, 'portalPagePassword')}</label><input id="password" name="password" type="password" autocomplete="current-password" required>` +
      `<label for="code">${t(lang, 'portalPageCode')}</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6"><small>${t(lang, 'portalPageCodeHint')}</small>` +
      `<button type="submit">${t(lang, 'portalPageSubmit')}</button></form>` +
      (f.sso ? `<p class="note"><a class="sso" href="${esc(f.sso.href)}">${t(lang, 'portalPageSso', { label: f.sso.label })}</a></p>` : ''),
  );
}

/** A note and a sign-out button (signed in already, or signed in but not allowed here). */
export function signedInPage(res: ServerResponse, o: PageOptions, user: string, form: string, note?: { key: MessageKey; vars?: Record<string, MsgValue> }): void {
  const { lang } = o;
  const extra = note ? `<p class="error" role="alert">${t(lang, note.key, note.vars)}</p>` : '';
  send(
    res,
    o,
    message(lang, 'portalPageTitle'),
    `<h1>${t(lang, 'portalPageTitle')}</h1>${extra}<p class="note">${t(lang, 'portalPageSignedInAs', { user })}</p>` +
      `<form method="post" action="${PORTAL_PATH}logout"><input type="hidden" name="form" value="${esc(form)}"><button type="submit">${t(lang, 'portalPageLogout')}</button></form>`,
  );
}

export function signedOutPage(res: ServerResponse, o: PageOptions): void {
  const { lang } = o;
  send(res, o, message(lang, 'portalPageLoggedOut'), `<h1>${t(lang, 'portalPageLoggedOut')}</h1><p class="note"><a href="${PORTAL_PATH}login">${t(lang, 'portalPageTitle')}</a></p>`);
}
