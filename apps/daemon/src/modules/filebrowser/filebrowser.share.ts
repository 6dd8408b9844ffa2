/**
 * Share links, the public side: `/share/:token` is a small page (no script) listing a shared folder
 * or offering a shared file, `/dl` and `/zip` download, `/list` answers JSON. Read-only, through the
 * storages service with the module's identity; a link switched off or deleted answers 404 at once,
 * an expired one 410. A password is checked with scrypt (the console's lock-out counts failures) and
 * gives an access key signed with a key of this process, bound to the link and its password.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Ret, message, type FbShare, type filebrowserContract, type Lang, type MessageKey, type MsgValue } from '@lucky/contracts';
import type { OwnHandlers } from '../../core/module.js';
import { verifyPassword } from '../../core/password.js';
import type { StoredRule } from '../../core/rulestore.js';
import type { ResolvedPath } from '../../core/services/storages.js';
import { asAppError, baseName, principalOf, sortEntries } from './filebrowser.fs.js';
import { sendZip } from './filebrowser.send.js';
import { listAt, sendAt, statAt, zipSourcesAt } from './filebrowser.storage.js';
import { stateOf, type FbContext } from './filebrowser.state.js';

type H = OwnHandlers<typeof filebrowserContract>;
type ShareHandlers = Pick<H, 'sharePage' | 'shareLogin' | 'shareList' | 'shareDownload' | 'shareZip'>;

/** A password gives access for this long. */
const ACCESS_MS = 12 * 3600_000;

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const human = (n: number) => (n >= 1 << 30 ? `${(n / (1 << 30)).toFixed(1)} GiB` : n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`);

export function shareExpired(s: FbShare, now = Date.now()): boolean {
  return s.expires !== null && s.expires <= now;
}

class Refusal {
  constructor(
    readonly status: number,
    readonly key: MessageKey,
    readonly vars: Record<string, MsgValue> = {},
  ) {}
}

function text(reply: FastifyReply, r: Refusal, lang: Lang): FastifyReply {
  return reply.code(r.status).type('text/plain; charset=utf-8').header('cache-control', 'no-store').send(message(lang, r.key, r.vars));
}

function page(reply: FastifyReply, status: number, lang: Lang, title: string, body: string): FastifyReply {
  const html = `<!doctype html><html lang="${lang === 'zh_CN' ? 'zh-CN' : 'en'}"><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer"><title>${esc(title)}</title>
<style>body{font:15px system-ui,sans-serif;max-width:900px;margin:2em auto;padding:0 1em;color:#222}table{border-collapse:collapse;width:100%}td{padding:.35em .5em;border-bottom:1px solid #eee}td.n{text-align:right;white-space:nowrap;color:#666}a{color:#1c7ed6;text-decoration:none}.btn{display:inline-block;padding:.4em .9em;background:#1c7ed6;color:#fff;border-radius:4px;margin:.2em .4em .2em 0}input{padding:.4em;font-size:15px}</style>
<body>${body}</body></html>`;
  return reply
    .code(status)
    .headers({ 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'" })
    .send(html);
}

export function shareHandlers(mod: FbContext): ShareHandlers {
  const storages = mod.services.storages;
  const state = stateOf(mod);

  const sign = (rule: StoredRule<FbShare>, exp: number) => createHmac('sha256', state.shareKey).update(`${rule.data.token}\0${exp}\0${rule.data.password}`).digest('base64url');

  function keyFor(rule: StoredRule<FbShare>): string {
    const exp = Date.now() + ACCESS_MS;
    return `${exp}.${sign(rule, exp)}`;
  }

  function keyOk(rule: StoredRule<FbShare>, k: string): boolean {
    const m = /^(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(k);
    if (!m || Number(m[1]) < Date.now()) return false;
    const want = Buffer.from(sign(rule, Number(m[1])));
    const got = Buffer.from(m[2]!);
    return want.length === got.length && timingSafeEqual(want, got);
  }

  /** The share a token names, as it is now; a Refusal otherwise. */
  function shareOf(token: string): StoredRule<FbShare> {
    const rule = mod.rules.list().find((r) => r.data.token === token) as StoredRule<FbShare> | undefined;
    if (!rule || !rule.data.enable) throw new Refusal(404, 'fbShareRevoked');
    if (shareExpired(rule.data)) throw new Refusal(410, 'fbShareExpired');
    return rule;
  }

  /** The place `sub` names inside the share (a file share has only itself), resolved for reading. */
  async function placeOf(rule: StoredRule<FbShare>, sub: string): Promise<ResolvedPath> {
    const g = storages.grant(principalOf(mod), rule.data.storage, { remote: true });
    if (!g) throw new Refusal(404, 'fbShareStorage');
    const base = rule.data.path.replace(/\/+$/, '');
    let rp: ResolvedPath;
    try {
      rp = await storages.resolve(g, sub === '/' || sub === '' ? base || '/' : `${base}/${sub.replace(/^\/+/, '')}`, 'read');
    } catch (err) {
      const e = asAppError(err, sub);
      throw new Refusal(e.ret === Ret.notFound ? 404 : 403, (e.key ?? 'fbFsFailed') as MessageKey, e.vars);
    }
    if (!rp.exists) throw new Refusal(404, 'fbNotFound', { path: sub });
    return rp;
  }

  /** A place's stat and a folder's entries, on disk or on a remote; a failure (a remote down) as a refusal. */
  async function statOr(rp: ResolvedPath) {
    try {
      return await statAt(rp);
    } catch (err) {
      const e = asAppError(err, rp.path);
      throw new Refusal(e.ret === Ret.notFound ? 404 : 502, (e.key ?? 'fbFsFailed') as MessageKey, e.vars);
    }
  }

  async function listOr(rp: ResolvedPath) {
    try {
      return await listAt(storages, rp.grant, rp);
    } catch (err) {
      const e = asAppError(err, rp.path);
      throw new Refusal(e.ret === Ret.notFound ? 404 : 502, (e.key ?? 'fbFsFailed') as MessageKey, e.vars);
    }
  }

  /** The path inside the share, for links and titles. */
  function inner(rule: StoredRule<FbShare>, rp: ResolvedPath): string {
    const base = rule.data.path.replace(/\/+$/, '');
    const p = rp.path.startsWith(`${base}/`) ? rp.path.slice(base.length) : '/';
    return p || '/';
  }

  async function run(req: FastifyRequest, reply: FastifyReply, token: string, k: string, fn: (rule: StoredRule<FbShare>) => Promise<FastifyReply>, html: boolean): Promise<FastifyReply> {
    try {
      const rule = shareOf(token);
      if (rule.data.password !== '' && !keyOk(rule, k)) {
        if (!html) throw new Refusal(401, 'fbSharePassword');
        return passwordPage(reply, req.lang, rule, token, false);
      }
      return await fn(rule);
    } catch (err) {
      if (err instanceof Refusal) return html ? page(reply, err.status, req.lang, message(req.lang, err.key, err.vars), `<p>${esc(message(req.lang, err.key, err.vars))}</p>`) : text(reply, err, req.lang);
      throw err;
    }
  }

  function passwordPage(reply: FastifyReply, lang: Lang, rule: StoredRule<FbShare>, token: string, wrong: boolean): FastifyReply {
    const t = (key: MessageKey, vars?: Record<string, MsgValue>) => esc(message(lang, key, vars));
    return page(
      reply,
      401,
      lang,
      message(lang, 'fbShareTitle', { name: rule.data.name }),
      `<h2>${t('fbShareTitle', { name: rule.data.name })}</h2><p>${t('fbSharePassword')}</p>${wrong ? `<p style="color:#c92a2a">${t('fbShareWrongPassword')}</p>` : ''}
<form method="post" action="${esc(token)}" enctype="text/plain"><input type="password" name="password" autofocus required> <button class="btn" type="submit">${t('fbShareSubmit')}</button></form>`,
    );
  }

  return {
    sharePage: ({ params, query, req, reply }) =>
      run(req, reply, params.token, query.k, async (rule) => {
        const lang = req.lang;
        const t = (key: MessageKey, vars?: Record<string, MsgValue>) => esc(message(lang, key, vars));
        const rp = await placeOf(rule, query.path);
        const s = await statOr(rp);
        const kq = query.k ? `&k=${encodeURIComponent(query.k)}` : '';
        const tok = encodeURIComponent(params.token);
        const here = inner(rule, rp);
        const title = message(lang, 'fbShareTitle', { name: rule.data.name });
        const expiry = rule.data.expires !== null ? `<p style="color:#666">${t('fbShareExpiresAt', { time: new Date(rule.data.expires).toISOString().replace('T', ' ').slice(0, 16) + ' UTC' })}</p>` : '';
        if (!s.isDirectory()) {
          const q = `path=${encodeURIComponent(here)}${kq}`;
          return page(
            reply,
            200,
            lang,
            title,
            `<h2>${esc(baseName(rp.path) || rule.data.name)}</h2><p>${esc(human(s.size))}</p>${expiry}<p><a class="btn" data-testid="share-download" href="${tok}/dl?${q}">${t('fbShareDownload')}</a><a class="btn" href="${tok}/dl?${q}&inline=1">${t('fbShareOpen')}</a></p>`,
          );
        }
        const entries = sortEntries(await listOr(rp), 'name', 'asc');
        const rows = entries
          .filter((e) => e.kind === 'dir' || e.kind === 'file')
          .map((e) => {
            const p = encodeURIComponent(here === '/' ? `/${e.name}` : `${here}/${e.name}`);
            const href = e.kind === 'dir' ? `${tok}?path=${p}${kq}` : `${tok}/dl?path=${p}${kq}`;
            return `<tr><td><a href="${href}">${e.kind === 'dir' ? `<b>${esc(e.name)}/</b>` : esc(e.name)}</a></td><td class="n">${e.kind === 'dir' ? '' : esc(human(e.size))}</td><td class="n">${esc(new Date(e.mtime).toISOString().slice(0, 16).replace('T', ' '))}</td></tr>`;
          })
          .join('');
        const up = here === '/' ? '' : `<a href="${tok}?path=${encodeURIComponent(here.slice(0, here.lastIndexOf('/')) || '/')}${kq}">⬑ ${t('fbShareUp')}</a> · `;
        return page(
          reply,
          200,
          lang,
          title,
          `<h2>${t('fbShareTitle', { name: rule.data.name })}</h2>${expiry}<p>${up}<code>${esc(here)}</code></p><p><a class="btn" data-testid="share-zip" href="${tok}/zip?path=${encodeURIComponent(here)}${kq}">${t('fbShareDownloadZip')}</a></p>${rows ? `<table>${rows}</table>` : `<p>${t('fbShareEmpty')}</p>`}`,
        );
      }, true),

    shareLogin: async ({ params, req, reply }) => {
      const lang = req.lang;
      const body = req.body;
      const form = typeof body === 'string';
      let password = '';
      if (form) password = /^password=(.*?)\r?\n?$/s.exec(body)?.[1] ?? '';
      else if (body && typeof body === 'object' && typeof (body as { password?: unknown }).password === 'string') password = (body as { password: string }).password;
      let rule: StoredRule<FbShare>;
      try {
        rule = shareOf(params.token);
      } catch (err) {
        if (err instanceof Refusal) return form ? page(reply, err.status, lang, message(lang, err.key), `<p>${esc(message(lang, err.key))}</p>`) : text(reply, err, lang);
        throw err;
      }
      const guard = mod.loginGuard;
      const wait = guard.lockedFor(req.ip);
      if (wait > 0) return text(reply, new Refusal(429, 'loginLocked', { seconds: wait }), lang);
      const good = rule.data.password === '' || (password !== '' && (await verifyPassword(password, rule.data.password)));
      if (!good) {
        guard.fail(req.ip);
        return form ? passwordPage(reply, lang, rule, params.token, true) : reply.send({ ret: Ret.denied, msg: message(lang, 'fbShareWrongPassword') });
      }
      guard.succeed(req.ip);
      const k = keyFor(rule);
      if (form) return reply.code(303).header('location', `${encodeURIComponent(params.token)}?k=${encodeURIComponent(k)}`).header('cache-control', 'no-store').send('');
      return reply.send({ ret: 0, k });
    },

    shareList: ({ params, query, req, reply }) =>
      run(req, reply, params.token, query.k, async (rule) => {
        const rp = await placeOf(rule, query.path);
        const s = await statOr(rp);
        const entries = s.isDirectory() ? sortEntries(await listOr(rp), 'name', 'asc') : [];
        return reply.header('cache-control', 'no-store').send({ ret: 0, name: rule.data.name, kind: s.isDirectory() ? 'dir' : 'file', path: inner(rule, rp), size: s.isDirectory() ? 0 : s.size, expires: rule.data.expires, entries });
      }, false),

    shareDownload: ({ params, query, req, reply }) =>
      run(req, reply, params.token, query.k, async (rule) => {
        const rp = await placeOf(rule, query.path);
        const s = await statOr(rp);
        state.counted(rule.key);
        if (s.isDirectory()) return sendZip(reply, zipSourcesAt([rp]), baseName(rp.path) || rule.data.name);
        return sendAt(req.raw, reply, rp, s, baseName(rp.path), query.inline === '1', mod.env.nativeRelay);
      }, false),

    shareZip: ({ params, query, req, reply }) =>
      run(req, reply, params.token, query.k, async (rule) => {
        const rp = await placeOf(rule, query.path);
        state.counted(rule.key);
        return sendZip(reply, zipSourcesAt([rp]), baseName(rp.path) || rule.data.name);
      }, false),
  };
}
