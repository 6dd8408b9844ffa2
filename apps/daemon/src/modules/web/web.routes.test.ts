/** The web module over the API: validation, hashed passwords, certificates, live apply, figures, access log, domain replace. */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET_MASK, type WebRuleView } from '@lucky/contracts';
import { makeCert } from '../../test/certs.js';
import { freePort, startTestDaemon, type TestDaemon } from '../../test/harness.js';

function get(port: number, host: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const r = request({ host: '127.0.0.1', port, path: '/', agent: false, headers: { host, ...headers }, timeout: 10_000 }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    r.on('timeout', () => r.destroy(new Error('timeout')));
    r.on('error', reject);
    r.end();
  });
}

describe('web module over the API', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startTestDaemon();
  });
  afterAll(async () => {
    await d.close();
  });

  const list = async () => (await d.call<{ list: WebRuleView[] }>('GET', '/api/web/rules')).list;

  it('refuses invalid rules and saves nothing', async () => {
    const port = await freePort();
    const before = (await list()).length;
    for (const bad of [
      { name: 'x', port, subRules: [{ domains: [''], service: { type: 'text' } }] },
      { name: 'x', port, subRules: [{ domains: ['   '], service: { type: 'text' } }] },
      { name: 'x', port, subRules: [{ domains: [], service: { type: 'text' } }] },
      { name: 'x', port, subRules: [{ domains: ['bad domain'], service: { type: 'text' } }] },
      { name: '', port },
      { name: 'x', port: 0 },
      { name: 'x', port, address: 'not-an-ip' },
      { name: 'x', port, defaultService: { type: 'proxy', targets: [] } },
      { name: 'x', port, defaultService: { type: 'proxy', targets: ['ftp://x'] } },
      { name: 'x', port, defaultService: { type: 'redirect', code: 303, target: 'https://x' } },
      { name: 'x', port, ipFilter: { mode: 'whitelist', list: ['1.2.3.4/99'] } },
      { name: 'x', port, accessLog: { capacity: 102401 } },
      { name: 'x', port, defaultService: { type: 'proxy', targets: ['http://x'], responseHeaders: [{ name: 'X', value: 'a\r\nSet-Cookie: b' }] } },
      { name: 'x', port, basicAuth: { enable: true, users: [{ user: 'new', password: '' }] } },
    ]) {
      const r = await d.call('POST', '/api/web/rules', bad);
      expect(r.ret, JSON.stringify(bad)).toBe(1);
      expect(r.msg).toBeTruthy();
    }
    const empty = await d.call('POST', '/api/web/rules', { name: 'x', port, subRules: [{ domains: [''], service: { type: 'text' } }] }, { headers: { 'lucky-lang': 'en_US' } });
    expect(empty.msg).toContain('cannot be empty');
    expect((await list()).length).toBe(before);
  });

  it('creates a rule that serves at once, hides passwords, shows figures, and applies edits live', async () => {
    const port = await freePort();
    const created = await d.call<{ key: string }>('POST', '/api/web/rules', {
      name: 'site',
      address: '127.0.0.1',
      port,
      defaultService: { type: 'text', body: 'hello {clientIP}' },
      subRules: [
        {
          name: 'priv',
          domains: ['Priv.Example.com'],
          service: { type: 'text', body: 'private' },
          basicAuth: { enable: true, users: [{ user: 'u', password: 'pw-123' }] },
        },
      ],
    });
    expect(created.ret).toBe(0);
    expect((await get(port, 'x.test')).body).toBe('hello 127.0.0.1');
    const auth = { authorization: `Basic ${Buffer.from('u:pw-123').toString('base64')}` };
    expect((await get(port, 'priv.example.com')).status).toBe(401);
    expect((await get(port, 'priv.example.com', auth)).body).toBe('private');

    const got = await d.call<{ rule: WebRuleView }>('GET', `/api/web/rules/${created.key}`);
    expect(got.rule.status.state).toBe('running');
    expect(got.rule.subRules[0]!.domains).toEqual(['priv.example.com']);
    expect(got.rule.subRules[0]!.basicAuth.users).toEqual([{ user: 'u', password: SECRET_MASK }]);
    expect(got.rule.figures.requests).toBeGreaterThanOrEqual(3);
    expect(got.rule.figures.codes['200']).toBeGreaterThanOrEqual(2);
    expect(got.rule.figures.codes['401']).toBeGreaterThanOrEqual(1);
    const row = d.runtime.db.prepare<[string], { data: string }>('SELECT data FROM rules WHERE key = ?').get(created.key)!;
    expect(row.data).not.toContain('pw-123');
    expect(row.data).toContain('scrypt$');

    // Saving the view back (the mask) keeps the stored hash; the new text applies at once.
    const edited = { ...got.rule, defaultService: { type: 'text', body: 'edited' } };
    expect((await d.call('PUT', `/api/web/rules/${created.key}`, edited)).ret).toBe(0);
    expect((await get(port, 'x.test')).body).toBe('edited');
    expect((await get(port, 'priv.example.com', auth)).body).toBe('private');

    const log = await d.call<{ list: Array<{ host: string; status: number }>; total: number }>('GET', `/api/web/rules/${created.key}/accesslog?limit=2`);
    expect(log.ret).toBe(0);
    expect(log.list.length).toBe(2);
    expect((await d.call('GET', `/api/web/rules/${created.key}/accesslog?limit=0`)).ret).toBe(1);
    expect((await d.call('GET', `/api/web/rules/${created.key}/accesslog?limit=257`)).ret).toBe(1);
    const events = await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/web/rules/${created.key}/logs`, undefined, { headers: { 'lucky-lang': 'en_US' } });
    expect(events.logs.some((l) => l.log.includes(`listening on http://127.0.0.1:${port}`))).toBe(true);
    // An empty password on a later save keeps it too (the console leaves the field blank).
    const blank = { ...edited, subRules: [{ ...edited.subRules[0]!, basicAuth: { ...edited.subRules[0]!.basicAuth, users: [{ user: 'u', password: '' }] } }] };
    expect((await d.call('PUT', `/api/web/rules/${created.key}`, blank)).ret).toBe(0);
    expect((await get(port, 'priv.example.com', auth)).body).toBe('private');

    expect((await d.call('PUT', `/api/web/rules/${created.key}/enable`, { enable: false })).ret).toBe(0);
    await expect(get(port, 'x.test')).rejects.toThrow();
    expect((await d.call<{ rule: WebRuleView }>('GET', `/api/web/rules/${created.key}`)).rule.status.state).toBe('disabled');
    expect((await d.call('PUT', `/api/web/rules/${created.key}/enable`, { enable: true })).ret).toBe(0);
    expect((await get(port, 'x.test')).body).toBe('edited');
    expect((await d.call('DELETE', `/api/web/rules/${created.key}`)).ret).toBe(0);
    expect((await d.call('GET', `/api/web/rules/${created.key}`)).ret).toBe(3);
  });

  it('shows a port in use as the rule status, and the daemon carries on', async () => {
    const blocker = createServer();
    const port = await new Promise<number>((r) => blocker.listen(0, '127.0.0.1', () => r((blocker.address() as { port: number }).port)));
    const r = await d.call<{ key: string }>('POST', '/api/web/rules', { name: 'busy', address: '127.0.0.1', port, firewallAllow: true });
    expect(r.ret).toBe(0);
    const v = (await d.call<{ rule: WebRuleView }>('GET', `/api/web/rules/${r.key}`)).rule;
    expect(v.status.state).toBe('error');
    expect(v.status.message).toContain(String(port));
    expect((await d.call('GET', '/api/web/rules')).ret).toBe(0);
    blocker.close();
    await d.call('DELETE', `/api/web/rules/${r.key}`);
  });

  it('replaces a domain across sub rules; an empty domain is refused and changes nothing', async () => {
    const mk = (name: string, domains: string[]) =>
      d.call<{ key: string }>('POST', '/api/web/rules', {
        name,
        enable: false,
        port: 1,
        subRules: [{ name: 'a', domains, service: { type: 'text' } }, { name: 'b', domains: ['keep.test'], service: { type: 'text' } }],
      });
    const a = await mk('r1', ['old.test', 'www.old.test']);
    const b = await mk('r2', ['old.test']);
    expect((await d.call('POST', '/api/web/domains/replace', { from: 'old.test', to: '' })).ret).toBe(1);
    expect((await d.call('POST', '/api/web/domains/replace', { from: '', to: 'new.test' })).ret).toBe(1);
    const r = await d.call<{ changed: number; rules: number }>('POST', '/api/web/domains/replace', { from: 'old.test', to: 'New.Test' });
    expect(r).toMatchObject({ ret: 0, changed: 2, rules: 2 });
    const ra = (await d.call<{ rule: WebRuleView }>('GET', `/api/web/rules/${a.key}`)).rule;
    expect(ra.subRules[0]!.domains).toEqual(['new.test', 'www.old.test']);
    expect(ra.subRules[1]!.domains).toEqual(['keep.test']);
    const only = await d.call<{ changed: number }>('POST', '/api/web/domains/replace', { from: 'new.test', to: 'x.test', keys: [b.key] });
    expect(only.changed).toBe(1);
    expect((await d.call<{ rule: WebRuleView }>('GET', `/api/web/rules/${a.key}`)).rule.subRules[0]!.domains[0]).toBe('new.test');
    await d.call('DELETE', `/api/web/rules/${a.key}`);
    await d.call('DELETE', `/api/web/rules/${b.key}`);
  });

  it('reports a port in use and a missing file root in the caller\'s language', async () => {
    const busy = createServer();
    const port = await new Promise<number>((r) => busy.listen(0, '127.0.0.1', () => r((busy.address() as { port: number }).port)));
    const r = await d.call<{ key: string }>('POST', '/api/web/rules', { name: 'busy', address: '127.0.0.1', port });
    expect(r.ret).toBe(0);
    const en = await d.call<{ rule: WebRuleView }>('GET', `/api/web/rules/${r.key}`, undefined, { headers: { 'lucky-lang': 'en_US' } });
    expect(en.rule.status).toMatchObject({ state: 'error', message: `port ${port} in use (127.0.0.1:${port})` });
    const zh = await d.call<{ list: WebRuleView[] }>('GET', '/api/web/rules', undefined, { headers: { 'lucky-lang': 'zh_CN' } });
    expect(zh.list.find((x) => x.key === r.key)?.status.message).toBe(`端口 ${port} 已被占用（127.0.0.1:${port}）`);
    busy.close();

    const free = await freePort();
    const missing = '/nonexistent/lucky-www';
    const files = await d.call<{ key: string }>('POST', '/api/web/rules', {
      name: 'files',
      address: '127.0.0.1',
      port: free,
      defaultService: { type: 'file', root: missing },
    });
    expect(files.ret).toBe(0);
    // It runs (a directory made later is served), and its status says what is wrong meanwhile.
    const zhFiles = await d.call<{ rule: WebRuleView }>('GET', `/api/web/rules/${files.key}`, undefined, { headers: { 'lucky-lang': 'zh_CN' } });
    expect(zhFiles.rule.status).toMatchObject({ state: 'error', message: `默认服务：目录 ${missing} 不存在` });
    const enFiles = await d.call<{ rule: WebRuleView }>('GET', `/api/web/rules/${files.key}`, undefined, { headers: { 'lucky-lang': 'en_US' } });
    expect(enFiles.rule.status.message).toBe(`default: ${missing} does not exist`);
    expect((await get(free, 'x.test')).status).toBe(503);
    for (const k of [r.key, files.key]) expect((await d.call('DELETE', `/api/web/rules/${k}`)).ret).toBe(0);
  });

  it('moves running rules between the main thread and serving threads when the setting changes', async () => {
    const port = await freePort();
    const created = await d.call<{ key: string }>('POST', '/api/web/rules', { name: 'moving', address: '127.0.0.1', port, defaultService: { type: 'text', body: 'here' } });
    expect(created.ret).toBe(0);
    const lines = async () => (await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/web/rules/${created.key}/logs`, undefined, { headers: { 'lucky-lang': 'en_US' } })).logs.map((l) => l.log);
    for (const [threads, shows] of [
      [1, (l: string) => l.endsWith(`listening on http://127.0.0.1:${port} in one thread`)],
      [3, (l: string) => l.endsWith(`listening on http://127.0.0.1:${port} in 3 threads`)],
      [2, (l: string) => l.endsWith(`listening on http://127.0.0.1:${port} in 2 threads`)],
    ] as const) {
      expect((await d.call('PUT', '/api/web/configure', { accessLogShow: 50, servingThreads: threads })).ret).toBe(0);
      // The PUT answers once the rule runs again, on the engine asked for.
      expect((await lines()).at(-1)).toSatisfy(shows);
      for (let i = 0; i < 6; i++) expect((await get(port, 'x.test')).body).toBe('here');
      const view = await d.call<{ rule: WebRuleView }>('GET', `/api/web/rules/${created.key}`);
      expect(view.rule.status.state).toBe('running');
      expect(view.rule.figures.requests).toBe(6); // counted afresh on each new engine
    }
    expect((await d.call('PUT', '/api/web/configure', { accessLogShow: 50, servingThreads: 17 })).ret).toBe(1);
    expect((await d.call<{ configure: { servingThreads: number } }>('GET', '/api/web/configure')).configure.servingThreads).toBe(2);
    expect((await d.call('DELETE', `/api/web/rules/${created.key}`)).ret).toBe(0);
  });

  it('masks certificate keys, keeps them when the mask comes back, and refuses a key of another certificate', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lucky-web-certs-'));
    try {
      const a = makeCert(dir, 'a', ['a.test']);
      const b = makeCert(dir, 'b', ['b.test']);
      const port = await freePort();
      const cn = (servername: string) =>
        new Promise<string>((resolve, reject) => {
          const s = connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false }, () => {
            resolve(String(s.getPeerCertificate().subject?.CN ?? ''));
            s.destroy();
          });
          s.on('error', reject);
        });
      const base = { name: 'tls', address: '127.0.0.1', port, protocol: 'https' };
      const en = { headers: { 'lucky-lang': 'en_US' } };
      const before = (await list()).length;
      expect(await d.call('POST', '/api/web/rules', { ...base, certs: [{ cert: a.cert, key: b.key }] }, en)).toMatchObject({
        ret: 1,
        msg: 'certificate 1: the private key does not belong to the certificate',
      });
      expect(await d.call('POST', '/api/web/rules', { ...base, certs: [{ cert: a.cert, key: b.key }] })).toMatchObject({ ret: 1, msg: '证书 1：私钥与证书不匹配' });
      expect((await list()).length).toBe(before);

      const created = await d.call<{ key: string }>('POST', '/api/web/rules', { ...base, certs: [{ cert: a.cert, key: a.key }, { cert: b.cert, key: b.key }] });
      expect(created.ret).toBe(0);
      expect(await cn('b.test')).toBe('b.test');
      const view = (await d.call<{ rule: WebRuleView }>('GET', `/api/web/rules/${created.key}`)).rule;
      expect(view.certs.map((c) => c.key)).toEqual([SECRET_MASK, SECRET_MASK]);
      expect(JSON.stringify(view)).not.toContain('PRIVATE KEY');
      // The first certificate removed, the second sent back with its mask: it keeps its own key.
      expect((await d.call('PUT', `/api/web/rules/${created.key}`, { ...view, certs: [view.certs[1]] })).ret).toBe(0);
      expect(await cn('a.test')).toBe('b.test');
      // A new certificate under a mask has no key behind it.
      const c = makeCert(dir, 'c', ['c.test']);
      expect((await d.call('PUT', `/api/web/rules/${created.key}`, { ...view, certs: [{ cert: c.cert, key: SECRET_MASK }] })).ret).toBe(1);
      expect((await d.call('DELETE', `/api/web/rules/${created.key}`)).ret).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps module settings within bounds', async () => {
    expect((await d.call('PUT', '/api/web/configure', { accessLogShow: 300 })).ret).toBe(1);
    expect((await d.call('PUT', '/api/web/configure', { accessLogShow: 100 })).ret).toBe(0);
    expect((await d.call<{ configure: { accessLogShow: number } }>('GET', '/api/web/configure')).configure.accessLogShow).toBe(100);
  });
});
