/**
 * Nothing sent out unasked: a daemon with the default settings opens no connection anywhere (every
 * TCP client socket of this process is watched through node:diagnostics_channel), and the info feed
 * of Settings is read from a local HTTP server only once a URL is set and someone asks; bad answers
 * (status, not JSON, wrong shape, too large, too slow, nobody listening) say why in the reader's
 * language and are not asked again for a minute unless refreshed.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { INFO_FEED_MAX_BYTES, type InfoFeedState } from '@lucky/contracts';
import { BASE_CONFIG_FILE } from '../core/baseconfig.js';
import { sayer } from '../core/logs.js';
import { freePort, startTestDaemon, type TestDaemon } from '../test/harness.js';
import { InfoFeedReader } from './infofeed.js';

const EN = { headers: { 'lucky-lang': 'en_US' } };
const ZH = { headers: { 'lucky-lang': 'zh_CN' } };

/** Every TCP connection this process starts, as `host:port` (filled once the socket connects). */
function watchConnections(): { seen: string[]; stop(): void } {
  const seen: string[] = [];
  const onSocket = (m: unknown) => {
    const socket = (m as { socket: Socket }).socket;
    socket.once('connect', () => seen.push(`${socket.remoteAddress}:${socket.remotePort}`));
    socket.once('lookup', (_err: unknown, address: string) => seen.push(`lookup ${address}`));
  };
  subscribe('net.client.socket', onSocket);
  return { seen, stop: () => unsubscribe('net.client.socket', onSocket) };
}

/** A feed server on loopback: `answer` decides each reply; `hits` counts the requests. */
async function feedServer() {
  const s = {
    hits: 0,
    accept: '',
    answer: ((res: ServerResponse) => void res.end('{}')) as (res: ServerResponse) => void,
    server: undefined as unknown as Server,
    url: '',
  };
  s.server = createServer((req: IncomingMessage, res) => {
    s.hits++;
    s.accept = String(req.headers.accept ?? '');
    s.answer(res);
  });
  const port = await new Promise<number>((r) => s.server.listen(0, '127.0.0.1', () => r((s.server.address() as { port: number }).port)));
  s.url = `http://127.0.0.1:${port}/feed.json`;
  return s;
}
const json = (body: unknown, status = 200) => (res: ServerResponse) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};

const FEED = {
  latestVersion: '99.1.0',
  notesUrl: 'https://example.invalid/notes/99.1.0',
  messages: [
    { level: 'warning', text: { zh_CN: '请尽快更新', en_US: 'Please update soon' }, url: 'https://example.invalid/advisory' },
    { text: 'one text for everyone' },
  ],
  somethingNewer: 'ignored',
};

describe('the info feed', () => {
  let d: TestDaemon;
  let feed: Awaited<ReturnType<typeof feedServer>>;
  const state = async (refresh = false, o = EN) => (await d.call<{ feed: InfoFeedState }>('GET', `/api/infofeed${refresh ? '?refresh=1' : ''}`, undefined, o)).feed;
  const setUrl = async (url: string) => expect((await d.call('PUT', '/api/baseconfigure', { InfoFeedUrl: url }, EN)).ret).toBe(0);

  beforeAll(async () => {
    feed = await feedServer();
  });
  afterAll(async () => {
    await d?.close();
    feed.server.close();
  });

  it('with the default settings, the daemon connects to nothing and the feed is off', async () => {
    const watch = watchConnections();
    try {
      d = await startTestDaemon();
      // Every module on (the default), the console's usual first calls, the About page's.
      for (const url of ['/version', '/api/modules/list', '/api/baseconfigure', '/api/info', '/api/status']) expect((await d.call('GET', url)).ret).toBe(0);
      expect((await d.call<{ baseconfigure: { InfoFeedUrl: string } }>('GET', '/api/baseconfigure')).baseconfigure.InfoFeedUrl).toBe('');
      expect(await state()).toEqual({ url: '', state: 'off', fetchedAt: 0, latestVersion: '', newer: false, notesUrl: '', messages: [], error: '' });
      expect(await state(true)).toMatchObject({ state: 'off', fetchedAt: 0 });
      await new Promise((r) => setTimeout(r, 1500));
      expect(watch.seen).toEqual([]);
    } finally {
      watch.stop();
    }
  });

  it('is read only once a URL is set and someone asks, in the reader language, then from memory', async () => {
    feed.answer = json(FEED);
    await setUrl(feed.url);
    expect(feed.hits).toBe(0); // saving fetches nothing
    const watch = watchConnections();
    try {
      const en = await state();
      expect(en).toMatchObject({ url: feed.url, state: 'ok', latestVersion: '99.1.0', newer: true, notesUrl: FEED.notesUrl, error: '' });
      expect(en.messages).toEqual([
        { level: 'warning', text: 'Please update soon', url: 'https://example.invalid/advisory' },
        { level: 'info', text: 'one text for everyone', url: '' },
      ]);
      expect(en.fetchedAt).toBeGreaterThan(Date.now() - 10_000);
      expect(feed.accept).toBe('application/json');
      expect((await state(false, ZH)).messages[0]!.text).toBe('请尽快更新');
      expect(feed.hits).toBe(1); // the second reader had it from memory
      await state(true);
      expect(feed.hits).toBe(2);
      expect(watch.seen.every((s) => s.startsWith('127.0.0.1:'))).toBe(true);
      expect(watch.seen.length).toBeGreaterThan(0);
    } finally {
      watch.stop();
    }
    const logs = await d.call<{ logs: Array<{ log: string }> }>('GET', '/api/logs?pre=0', undefined, EN);
    expect(logs.logs.some((l) => l.log.includes(`read the info feed ${feed.url}: latest version 99.1.0`))).toBe(true);
  });

  it('says why a bad answer is not a feed, in the reader language', async () => {
    const cases: Array<[string, (res: ServerResponse) => void, string, string]> = [
      ['status', json({ error: 'gone' }, 404), 'HTTP 404', 'HTTP 404'],
      ['not JSON', json('<html>maintenance</html>'), 'HTTP 200: not JSON: <html>maintenance</html>', 'HTTP 200：回答不是 JSON：<html>maintenance</html>'],
      ['no version', json({ notesUrl: 'https://example.invalid/' }), 'the answer is not an info feed (Invalid latestVersion: ', '信息源的内容格式不对（参数 latestVersion 错误：'],
      ['a link that is no web address', json({ latestVersion: '1.0.0', notesUrl: 'javascript:alert(1)' }), 'the answer is not an info feed (Invalid notesUrl: is not a valid http(s) URL)', '信息源的内容格式不对（参数 notesUrl 错误：不是有效的 http(s) 地址）'],
      ['not an object', json('[1, 2]'), 'the answer is not an info feed (Invalid request: ', '信息源的内容格式不对（参数错误：'],
      ['too large', json({ latestVersion: '1.0.0', messages: [{ text: 'x'.repeat(INFO_FEED_MAX_BYTES) }] }), 'the answer is larger than', '回答超过'],
    ];
    for (const [what, answer, en, zh] of cases) {
      feed.answer = answer;
      const got = await state(true);
      expect(got, what).toMatchObject({ state: 'failed', latestVersion: '', newer: false, messages: [] });
      expect(got.error, what).toContain(en);
      expect((await state(false, ZH)).error, what).toContain(zh);
    }
    // A failure is not asked again at every page view.
    const hits = feed.hits;
    await state();
    expect(feed.hits).toBe(hits);
    // And a good answer after it is taken.
    feed.answer = json(FEED);
    expect((await state(true)).state).toBe('ok');
  });

  it('a new URL applies at once; none stops every read', async () => {
    const other = await feedServer();
    try {
      other.answer = json({ latestVersion: '0.0.1' });
      await setUrl(other.url);
      expect(await state()).toMatchObject({ url: other.url, state: 'ok', latestVersion: '0.0.1', newer: false });
      await setUrl('');
      const before = [feed.hits, other.hits];
      expect(await state(true)).toMatchObject({ url: '', state: 'off', latestVersion: '' });
      expect([feed.hits, other.hits]).toEqual(before);
    } finally {
      other.server.close();
    }
  });

  it('refuses a URL that is not http(s), in the user language, and saves nothing', async () => {
    for (const url of ['ftp://example.invalid/feed', 'javascript:alert(1)', 'example.invalid/feed', 'http://']) {
      const en = await d.call('PUT', '/api/baseconfigure', { InfoFeedUrl: url }, EN);
      expect(en.ret, url).toBe(1);
      expect(en.msg, url).toContain('is not a valid http(s) URL');
      const zh = await d.call('PUT', '/api/baseconfigure', { InfoFeedUrl: url }, ZH);
      expect(zh.msg, url).toContain('不是有效的 http(s) 地址');
    }
    expect((await d.call<{ baseconfigure: { InfoFeedUrl: string } }>('GET', '/api/baseconfigure')).baseconfigure.InfoFeedUrl).toBe('');
  });

  it('a settings file written before the feed existed loads with no feed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lucky-feed-old-'));
    try {
      await (await startTestDaemon({ dataDir })).close();
      const file = join(dataDir, BASE_CONFIG_FILE);
      const { InfoFeedUrl: _gone, ...old } = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      writeFileSync(file, JSON.stringify(old));
      const before = await startTestDaemon({ dataDir });
      try {
        expect((await before.call<{ feed: InfoFeedState }>('GET', '/api/infofeed')).feed.state).toBe('off');
        expect((await before.call<{ baseconfigure: { InfoFeedUrl: string } }>('GET', '/api/baseconfigure')).baseconfigure.InfoFeedUrl).toBe('');
      } finally {
        await before.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the info feed reader against peers that do not answer', () => {
  const servers: Server[] = [];
  afterEach(() => servers.splice(0).forEach((s) => s.close()));

  async function reader(url: string) {
    const { BaseConfigStore } = await import('../core/baseconfig.js');
    const d = await startTestDaemon();
    const config = new BaseConfigStore(join(d.dataDir, 'copy.lkcf'), { ...d.runtime.config.get(), InfoFeedUrl: url });
    const r = new InfoFeedReader({ config, version: '1.0.0', say: sayer(pino({ level: 'silent' })), timeoutMs: 400 });
    return { r, close: async () => (await r.close(), await d.close()) };
  }

  it('a server that never answers is given up on after the timeout', async () => {
    const silent = createServer(() => undefined);
    servers.push(silent);
    const port = await new Promise<number>((r) => silent.listen(0, '127.0.0.1', () => r((silent.address() as { port: number }).port)));
    const { r, close } = await reader(`http://127.0.0.1:${port}/`);
    try {
      const t = Date.now();
      const s = await r.state('en_US');
      expect(Date.now() - t).toBeLessThan(3000);
      expect(s).toMatchObject({ state: 'failed' });
      expect(s.error).toMatch(/^timeout after 0\.4s/);
    } finally {
      silent.closeAllConnections();
      await close();
    }
  });

  it('nobody listening is a failed read that names the refusal', async () => {
    const { r, close } = await reader(`http://127.0.0.1:${await freePort()}/`);
    try {
      const s = await r.state('en_US');
      expect(s.state).toBe('failed');
      expect(s.error).toMatch(/^request failed: .*ECONNREFUSED/);
    } finally {
      await close();
    }
  });
});
