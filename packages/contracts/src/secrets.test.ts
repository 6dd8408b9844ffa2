import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { secretHeaderLines } from './http.js';
import { maskSecrets, restoreSecrets, secret, secretPaths, SECRET_MASK } from './secrets.js';

const ZUser = z.object({ user: z.string(), password: secret(z.string(), { hash: true }) });
const ZThing = z.object({
  name: z.string(),
  token: secret(z.string().min(1)),
  proxy: z.object({ url: z.string(), password: secret(z.string()).default('') }).prefault({}),
  users: z.array(ZUser).default([]),
  auth: z.discriminatedUnion('kind', [z.object({ kind: z.literal('none') }), z.object({ kind: z.literal('key'), key: secret(z.string()) })]),
});

const stored = {
  name: 'x',
  token: 'tok-1',
  proxy: { url: 'http://p', password: 'pp' },
  users: [
    { user: 'alice', password: 'hash-a' },
    { user: 'bob', password: 'hash-b' },
  ],
  auth: { kind: 'key', key: 'k-1' },
};

describe('secrets declared in the schema', () => {
  it('are found through objects, defaults, arrays and unions', () => {
    expect(secretPaths(ZThing).map((p) => JSON.stringify(p.path))).toEqual(['["token"]', '["proxy","password"]', '["users",[],"password"]', '["auth","key"]']);
    expect(secretPaths(ZThing).find((p) => p.path[0] === 'users')?.info).toEqual({ hash: true });
  });

  it('are masked in answers, empty ones left empty, the input untouched', () => {
    const masked = maskSecrets(ZThing, { ...stored, proxy: { url: 'http://p', password: '' } });
    expect(masked).toMatchObject({ token: SECRET_MASK, proxy: { password: '' }, users: [{ user: 'alice', password: SECRET_MASK }, { password: SECRET_MASK }], auth: { key: SECRET_MASK } });
    expect(JSON.stringify(masked)).not.toMatch(/tok-1|hash-a|k-1/);
    expect(stored.token).toBe('tok-1');
  });

  it('keep the stored value when the mask comes back, matching list items by name before position', () => {
    const sent = { ...maskSecrets(ZThing, stored), users: [{ user: 'bob', password: SECRET_MASK }, { user: 'carol', password: 'new' }] };
    const back = restoreSecrets(ZThing, sent, stored) as typeof stored;
    expect(back.token).toBe('tok-1');
    expect(back.proxy.password).toBe('pp');
    expect(back.users).toEqual([{ user: 'bob', password: 'hash-b' }, { user: 'carol', password: 'new' }]);
    expect(back.auth).toEqual({ kind: 'key', key: 'k-1' });
    expect(ZThing.parse(back).token).toBe('tok-1');
  });

  it('never hand a renamed or new list item the secret of the item at its position', () => {
    const sent = { ...maskSecrets(ZThing, stored), users: [{ user: 'carol', password: SECRET_MASK }, { user: 'dave', password: '' }] };
    const back = restoreSecrets(ZThing, sent, stored) as typeof stored;
    expect(back.users).toEqual([{ user: 'carol', password: '' }, { user: 'dave', password: '' }]);
  });

  it('find a certificate\'s stored key by the certificate when the key comes back masked', () => {
    const ZCerts = z.object({ certs: z.array(z.object({ cert: z.string(), key: secret(z.string()) })) });
    const kept = { certs: [{ cert: 'C1', key: 'K1' }, { cert: 'C2', key: 'K2' }] };
    // The first one removed: the second keeps its own key, not the first one's.
    const back = restoreSecrets(ZCerts, { certs: [{ cert: 'C2', key: SECRET_MASK }] }, kept) as typeof kept;
    expect(back.certs).toEqual([{ cert: 'C2', key: 'K2' }]);
    // A new certificate under the mask has no key behind it.
    expect(restoreSecrets(ZCerts, { certs: [{ cert: 'C3', key: SECRET_MASK }] }, kept)).toEqual({ certs: [{ cert: 'C3', key: '' }] });
  });

  it('turn a mask with nothing stored behind it into an empty value the schema judges', () => {
    const sent = { ...stored, token: SECRET_MASK };
    const back = restoreSecrets(ZThing, sent, undefined);
    expect(ZThing.safeParse(back).success).toBe(false);
  });

  it('take an empty hashed secret as "unchanged" but an empty plain one as empty', () => {
    const sent = { ...stored, proxy: { url: 'http://p', password: '' }, users: [{ user: 'alice', password: '' }] };
    const back = restoreSecrets(ZThing, sent, stored) as typeof stored;
    expect(back.users[0]!.password).toBe('hash-a');
    expect(back.proxy.password).toBe('');
  });

  it('accept the mask itself, so a form that shows one passes its own check', () => {
    expect(ZThing.safeParse({ ...maskSecrets(ZThing, stored) }).success).toBe(true);
  });

  it('bound to fields beside them, are kept behind the mask only while those stay as stored', () => {
    const ZLink = z.object({ url: z.string(), pin: z.string().default(''), token: secret(z.string(), { boundTo: ['url', 'pin'] }) });
    const saved = { url: 'http://a', pin: '', token: 'tok-1' };
    expect(restoreSecrets(ZLink, { url: ' http://a ', token: SECRET_MASK }, saved)).toEqual({ url: ' http://a ', token: 'tok-1' });
    expect(restoreSecrets(ZLink, { url: 'http://b', pin: '', token: SECRET_MASK }, saved)).toEqual({ url: 'http://b', pin: '', token: '' });
    expect(restoreSecrets(ZLink, { url: 'http://a', pin: 'AB', token: SECRET_MASK }, saved)).toMatchObject({ token: '' });
    // Typed again, it goes wherever it was typed for.
    expect(restoreSecrets(ZLink, { url: 'http://b', token: 'tok-1' }, saved)).toEqual({ url: 'http://b', token: 'tok-1' });
    expect(secretPaths(ZLink)[0]!.info).toEqual({ boundTo: ['url', 'pin'] });
  });

  it('header lines: only values masked, a masked line keeps the stored line of its name, bound to the URL', () => {
    const ZCall = z.object({ url: z.string(), headers: secretHeaderLines(['url']).default([]) });
    const saved = { url: 'http://a', headers: ['Authorization: Bearer tok-1', 'X-Empty:', 'Cookie: a=1', 'Cookie: b=2'] };
    const shown = maskSecrets(ZCall, saved);
    expect(shown.headers).toEqual([`Authorization: ${SECRET_MASK}`, 'X-Empty:', `Cookie: ${SECRET_MASK}`, `Cookie: ${SECRET_MASK}`]);
    expect(JSON.stringify(shown)).not.toMatch(/tok-1|a=1|b=2/);
    expect(ZCall.safeParse(shown).success).toBe(true);
    // Reordered, one removed, one typed anew, one added: each masked line finds its own, by name and turn.
    const sent = { url: 'http://a', headers: [`Cookie: ${SECRET_MASK}`, `authorization:${SECRET_MASK}`, 'X-New: v', `Cookie: ${SECRET_MASK}`] };
    expect(restoreSecrets(ZCall, sent, saved)).toEqual({ url: 'http://a', headers: ['Cookie: a=1', 'Authorization: Bearer tok-1', 'X-New: v', 'Cookie: b=2'] });
    // A third Cookie and a header never stored have nothing behind their masks: dropped.
    expect(restoreSecrets(ZCall, { url: 'http://a', headers: [`Cookie: ${SECRET_MASK}`, `Cookie: ${SECRET_MASK}`, `Cookie: ${SECRET_MASK}`, `X-Other: ${SECRET_MASK}`] }, saved)).toEqual({
      url: 'http://a',
      headers: ['Cookie: a=1', 'Cookie: b=2'],
    });
    // Another URL: no stored value goes there behind a mask; typed lines do.
    expect(restoreSecrets(ZCall, { url: 'http://b', headers: [`Authorization: ${SECRET_MASK}`, 'X-Typed: 1'] }, saved)).toEqual({ url: 'http://b', headers: ['X-Typed: 1'] });
    // One text, a line a header (as a textarea sends it): read the same way.
    expect(restoreSecrets(ZCall, { url: 'http://a', headers: `Cookie: ${SECRET_MASK}\nX-New: v\n` }, saved)).toEqual({ url: 'http://a', headers: ['Cookie: a=1', 'X-New: v'] });
    expect(secretPaths(ZCall)[0]).toEqual({ path: ['headers', []], info: { header: true, boundTo: ['url'] } });
  });
});
