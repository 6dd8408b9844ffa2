/**
 * Lucky login in front of a site: a request with a live portal session of a user allowed on this
 * rule passes (the app gets the user's name in the header the rule names, and never the session
 * cookie); a browser without one is sent to the rule's own sign-in page under `/.lucky/`; anything
 * else gets 401. The sign-in form is guarded against forgery twice (a double-submit value in a
 * SameSite=Strict cookie, and the Origin header when the browser sends one), and every wrong
 * guess counts in the daemon's defender.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseLang, PORTAL_COOKIE, PORTAL_FORM_COOKIE, PORTAL_PATH, type Lang } from '@lucky/contracts/runtime';
import type { PortalCookie } from '../../core/services/portal.js';
import { webPortal } from './web.portal.js';
import { setRequestHeaders } from './web.reqheaders.js';
import { loginPage, signedInPage, signedOutPage, type LoginForm, type PageOptions } from './web.portalpage.js';
import { msgOf } from '../../lib/msgerror.js';

type LoginError = NonNullable<LoginForm['error']>;

export interface PortalSite {
  /** The header the app gets the user's name in; '' = none. */
  userHeader: string;
  /** Behind the native data plane: a session checked and allowed, which it may then serve itself for `ms`. */
  verified?(token: string, ms: number, user: string): void;
}

export interface PortalRequest {
  /** The web rule's key (a user's allowed rules name it). */
  rule: string;
  req: IncomingMessage;
  res: ServerResponse;
  site: PortalSite;
  ip: string;
  host: string;
  /** Path and query. */
  path: string;
  /** The client reached us over TLS (the rule's own, or a trusted proxy's). */
  secure: boolean;
}

const FORM_MAX = 8 * 1024;
const FORM_COOKIE_SECONDS = 3600;

/** One cookie's value out of the Cookie header(s); '' when absent. */
export function cookieValue(header: string | string[] | undefined, name: string): string {
  if (!header) return '';
  const all = Array.isArray(header) ? header.join('; ') : header;
  for (const part of all.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return '';
}

/** The Cookie header without the portal's own cookies (the app never sees a session token). */
function withoutPortalCookies(value: string): string {
  return value
    .split(';')
    .filter((p) => {
      const n = p.slice(0, p.indexOf('=') >>> 0).trim();
      return n !== PORTAL_COOKIE && n !== PORTAL_FORM_COOKIE;
    })
    .join(';')
    .trim();
}

/**
 * The request as the app gets it: the user header set to `user` (any the client sent dropped) and
 * the portal's cookies taken out. Headers are rewritten in place: the proxy copies `rawHeaders`.
 */
export function passOn(req: IncomingMessage, userHeader: string, user: string | null): void {
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() !== 'cookie') continue;
    const left = withoutPortalCookies(raw[i + 1]!);
    if (left) raw[i + 1] = left;
    else {
      raw.splice(i, 2);
      i -= 2;
    }
  }
  if (req.headers.cookie !== undefined) {
    const left = withoutPortalCookies(req.headers.cookie);
    if (left) req.headers.cookie = left;
    else delete req.headers.cookie;
  }
  if (userHeader) setRequestHeaders(req, [userHeader.toLowerCase()], user === null ? [] : [userHeader, user]);
}

/** Where to go after signing in: a path of this site only (no `//host`, no scheme). */
export function safeReturn(rd: string | null | undefined): string {
  if (!rd || rd.length > 2048 || !rd.startsWith('/') || rd.startsWith('//') || rd.startsWith('/\\') || /[\r\n]/.test(rd)) return '/';
  return rd;
}

function langOf(req: IncomingMessage): Lang {
  const h = req.headers['accept-language'];
  return parseLang(Array.isArray(h) ? h[0] : h);
}

/** The cookie's Domain when the host is the operator's parent domain or under it; else host-only. */
function domainFor(host: string, c: PortalCookie): string {
  const d = c.domain;
  return d && (host === d || host.endsWith(`.${d}`)) ? `; Domain=${d}` : '';
}

function sessionCookie(g: PortalRequest, c: PortalCookie, token: string | null): string {
  const life = token === null ? 'Max-Age=0' : `Max-Age=${c.maxAgeSeconds}`;
  return `${PORTAL_COOKIE}=${token ?? ''}; Path=/${domainFor(g.host, c)}; ${life}; HttpOnly; SameSite=Lax${g.secure ? '; Secure' : ''}`;
}

function formCookie(g: PortalRequest, value: string): string {
  return `${PORTAL_FORM_COOKIE}=${value}; Path=${PORTAL_PATH}; Max-Age=${FORM_COOKIE_SECONDS}; HttpOnly; SameSite=Strict${g.secure ? '; Secure' : ''}`;
}

const sameValue = (a: string, b: string): boolean => a.length === b.length && a.length > 0 && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** A form posted from a page of this very host, with the value its cookie holds. */
function genuine(g: PortalRequest, fields: URLSearchParams): boolean {
  const origin = g.req.headers.origin;
  if (origin !== undefined && origin !== 'null') {
    try {
      if (new URL(origin).host !== (g.req.headers.host ?? '')) return false;
    } catch {
      return false;
    }
  } else if (origin === 'null') return false;
  return sameValue(fields.get('form') ?? '', cookieValue(g.req.headers.cookie, PORTAL_FORM_COOKIE));
}

function readForm(req: IncomingMessage): Promise<URLSearchParams | null> {
  return new Promise((resolve) => {
    const type = String(req.headers['content-type'] ?? '');
    if (!/^application\/x-www-form-urlencoded\b/i.test(type)) return resolve(null);
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > FORM_MAX) {
        resolve(null);
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
    req.on('error', () => resolve(null));
  });
}

const newFormValue = () => randomBytes(18).toString('base64url');

async function showLogin(g: PortalRequest, status: number, rd: string, extra: Partial<Parameters<typeof loginPage>[2]> = {}, headers?: Record<string, string>): Promise<void> {
  const form = newFormValue();
  const sso = await webPortal.sso();
  const button = sso.enable ? { sso: { label: sso.label, href: `${PORTAL_PATH}sso?rd=${encodeURIComponent(rd)}` } } : {};
  loginPage(g.res, { lang: langOf(g.req), status, cookies: [formCookie(g, form)], ...(headers ? { headers } : {}) }, { form, rd, ...button, ...extra });
}

const origin = (g: PortalRequest) => `${g.secure ? 'https' : 'http'}://${g.req.headers.host ?? g.host}`;

/** Single sign-on: to the provider, and back with the person it vouches for. */
async function ssoPages(g: PortalRequest, page: string, query: URLSearchParams): Promise<void> {
  const { req, res } = g;
  if (page === 'sso') {
    const rd = safeReturn(query.get('rd'));
    let url: string;
    try {
      url = await webPortal.ssoStart({ redirectUri: `${origin(g)}${PORTAL_PATH}sso/callback`, rd, rule: g.rule });
    } catch (err) {
      return showLogin(g, 503, rd, { error: msgOf(err) as LoginError });
    }
    res.writeHead(302, { Location: url, 'Cache-Control': 'no-store', 'Content-Length': '0' });
    return void res.end();
  }
  const { result, cookie } = await webPortal.ssoFinish({ callback: `${origin(g)}${g.path}`, address: g.ip, agent: String(req.headers['user-agent'] ?? '') });
  const rd = safeReturn(result.rd);
  if (result.ok) {
    res.writeHead(303, { Location: rd, 'Set-Cookie': sessionCookie(g, cookie, result.token), 'Cache-Control': 'no-store', 'Content-Length': '0' });
    return void res.end();
  }
  if (result.reason === 'notAllowed') return showLogin(g, 403, rd, { error: { key: 'portalPageNotAllowed', vars: { user: result.user ?? '' } } });
  return showLogin(g, 401, rd, { error: (result.msg ?? { key: 'oidcOff' }) as LoginError });
}

/** The pages under `/.lucky/`: sign in (GET form, POST), sign out. */
async function portalPages(g: PortalRequest): Promise<void> {
  const { req, res } = g;
  const lang = langOf(req);
  const q = g.path.indexOf('?');
  const page = (q >= 0 ? g.path.slice(0, q) : g.path).slice(PORTAL_PATH.length);
  const query = new URLSearchParams(q >= 0 ? g.path.slice(q + 1) : '');
  const opts = (status: number, cookies: string[] = []): PageOptions => ({ lang, status, cookies });
  if ((page === 'sso' || page === 'sso/callback') && (req.method === 'GET' || req.method === 'HEAD')) return ssoPages(g, page, query);
  if (page === 'login' && (req.method === 'GET' || req.method === 'HEAD')) {
    const token = cookieValue(req.headers.cookie, PORTAL_COOKIE);
    const pass = token ? await webPortal.pass(token) : null;
    if (pass) {
      const form = newFormValue();
      return signedInPage(res, opts(200, [formCookie(g, form)]), pass.user, form);
    }
    return showLogin(g, 200, safeReturn(query.get('rd')));
  }
  if (page === 'login' && req.method === 'POST') {
    const fields = await readForm(req);
    const rd = safeReturn(fields?.get('rd'));
    if (!fields || !genuine(g, fields)) return showLogin(g, 403, rd, { error: { key: 'portalPageExpired' } });
    const user = (fields.get('user') ?? '').trim().slice(0, 128);
    const { result, cookie } = await webPortal.signIn({
      user,
      password: (fields.get('password') ?? '').slice(0, 1024),
      code: (fields.get('code') ?? '').trim().slice(0, 16),
      address: g.ip,
      agent: String(req.headers['user-agent'] ?? ''),
      rule: g.rule,
    });
    if (result.ok) {
      res.writeHead(303, { Location: rd, 'Set-Cookie': [sessionCookie(g, cookie, result.token), `${PORTAL_FORM_COOKIE}=; Path=${PORTAL_PATH}; Max-Age=0`], 'Cache-Control': 'no-store', 'Content-Length': '0' });
      return void res.end();
    }
    if (result.reason === 'locked') return showLogin(g, 429, rd, { user, error: { key: 'portalPageLocked', vars: { seconds: result.seconds ?? 1 } } }, { 'Retry-After': String(result.seconds ?? 1) });
    if (result.reason === 'busy') return showLogin(g, 429, rd, { user, error: { key: 'portalPageBusy' } }, { 'Retry-After': '1' });
    if (result.reason === 'notAllowed') return showLogin(g, 403, rd, { user, error: { key: 'portalPageNotAllowed', vars: { user: result.user ?? user } } });
    return showLogin(g, 401, rd, { user, error: { key: 'portalPageWrong' } });
  }
  if (page === 'logout' && req.method === 'POST') {
    const fields = await readForm(req);
    if (!fields || !genuine(g, fields)) return showLogin(g, 403, '/', { error: { key: 'portalPageExpired' } });
    const cookie = await webPortal.signOut(cookieValue(req.headers.cookie, PORTAL_COOKIE));
    return signedOutPage(res, opts(200, [sessionCookie(g, cookie, null)]));
  }
  if (page === 'logout' && (req.method === 'GET' || req.method === 'HEAD')) {
    // A link cannot sign anyone out (that would let any page do it): the button posts the form.
    const token = cookieValue(req.headers.cookie, PORTAL_COOKIE);
    const pass = token ? await webPortal.pass(token) : null;
    if (!pass) return signedOutPage(res, opts(200));
    const form = newFormValue();
    return signedInPage(res, opts(200, [formCookie(g, form)]), pass.user, form);
  }
  res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': '10' });
  res.end('not found\n');
}

/** A browser asking for a page (sent to the sign-in page) rather than a script (answered 401). */
function navigating(req: IncomingMessage): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const accept = String(req.headers.accept ?? '');
  return accept.includes('text/html');
}

/**
 * Runs the portal for one request of a protected site: answers it itself (a page, a redirect, a
 * refusal) or calls `go` once the request may pass. `basic`, when given, takes a request that
 * carries an Authorization header instead (basic auth on as well), and its challenge goes with a 401.
 */
export function portalGate(g: PortalRequest, go: () => void, basic: { challenge: string; check: () => void } | null): void {
  if (g.path.startsWith(PORTAL_PATH)) {
    portalPages(g).catch(() => {
      if (!g.res.headersSent) g.res.writeHead(500, { 'Content-Length': '0' }).end();
    });
    return;
  }
  if (basic && g.req.headers.authorization !== undefined) {
    passOn(g.req, g.site.userHeader, null);
    return basic.check();
  }
  const token = cookieValue(g.req.headers.cookie, PORTAL_COOKIE);
  const decide = (pass: Awaited<ReturnType<typeof webPortal.pass>>) => {
    if (g.res.destroyed) return;
    if (pass && (pass.rules === null || pass.rules.includes(g.rule))) {
      g.site.verified?.(token, pass.until - Date.now(), pass.user);
      passOn(g.req, g.site.userHeader, pass.user);
      return go();
    }
    if (pass) {
      const form = newFormValue();
      return signedInPage(g.res, { lang: langOf(g.req), status: 403, cookies: [formCookie(g, form)] }, pass.user, form, { key: 'portalPageNotAllowed', vars: { user: pass.user } });
    }
    if (navigating(g.req)) {
      g.res.writeHead(302, { Location: `${PORTAL_PATH}login?rd=${encodeURIComponent(g.path)}`, 'Cache-Control': 'no-store', 'Content-Length': '0' });
      return void g.res.end();
    }
    g.res.writeHead(401, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': '15', 'Cache-Control': 'no-store', ...(basic ? { 'WWW-Authenticate': basic.challenge } : {}) });
    g.res.end('login required\n');
  };
  const pass = token ? webPortal.pass(token) : null;
  if (pass instanceof Promise) pass.then(decide, () => decide(null));
  else decide(pass);
}
