/**
 * What the serving-threads setting means on the Node path (LUCKY_WEB_ENGINE=node): 1 is one serving
 * thread, `mainThreadOnly` the main thread, 0 automatic; and settings saved before `mainThreadOnly`
 * existed keep their meaning (`servingThreads: 1` was the main thread), in lucky.db and in a backup.
 *
 * Which thread answers is seen from outside: curl runs while this (the daemon's main) thread is
 * blocked in execFileSync. A serving thread answers it; the main thread cannot, and curl times out.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebConfigure } from '@lucky/contracts';
import { openDb } from '../../core/db.js';
import { freePort, startTestDaemon, type TestDaemon } from '../../test/harness.js';
import type { WebEngine } from './web.engine.js';

const NODE_PATH = { nativeRelay: true, webEngine: 'node' as const };
const EN = { headers: { 'lucky-lang': 'en_US' } };

/** curl's answer while the main thread waits for it: the body, or null when nothing came in time. */
function answerWhileMainBlocked(port: number): string | null {
  try {
    return execFileSync('curl', ['-s', '--max-time', '2', '-H', 'Host: x.test', `http://127.0.0.1:${port}/`], { encoding: 'utf8', timeout: 10_000 });
  } catch (err) {
    if ((err as { status?: number }).status === 28) return null; // curl's "timed out"
    throw err;
  }
}

async function webEngine(d: TestDaemon): Promise<WebEngine> {
  return (await (await d.runtime.deps.modules.load('web')).ctx.engine()) as WebEngine;
}

describe('servingThreads on the Node path', () => {
  let d: TestDaemon;
  let port: number;
  let key: string;
  const lastLine = async () =>
    (await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/web/rules/${key}/logs`, undefined, EN)).logs.map((l) => l.log).at(-1);
  const configure = async (body: Partial<WebConfigure>) => expect((await d.call('PUT', '/api/web/configure', body)).ret).toBe(0);

  beforeAll(async () => {
    d = await startTestDaemon({ env: NODE_PATH });
    port = await freePort();
    const created = await d.call<{ key: string }>('POST', '/api/web/rules', { name: 'here', address: '127.0.0.1', port, defaultService: { type: 'text', body: 'here' } });
    expect(created.ret).toBe(0);
    key = created.key;
  });
  afterAll(() => d.close());

  it('1 is one serving thread: it answers while the main thread is blocked', async () => {
    await configure({ servingThreads: 1 });
    const engine = await webEngine(d);
    if (engine.onMainThread) throw new Error('serving threads need `npm run build` (native addon and worker)');
    expect(engine.servingThreads).toBe(1);
    expect(await lastLine()).toMatch(new RegExp(` listening on http://127\\.0\\.0\\.1:${port} in one thread$`));
    expect(answerWhileMainBlocked(port)).toBe('here');
    expect((await d.call<{ configure: WebConfigure }>('GET', '/api/web/configure')).configure).toEqual({ accessLogShow: 50, servingThreads: 1, mainThreadOnly: false });
  });

  it('mainThreadOnly serves on the main thread: nothing answers while it is blocked, then it does', async () => {
    await configure({ servingThreads: 1, mainThreadOnly: true });
    const engine = await webEngine(d);
    expect(engine.onMainThread).toBe(true);
    expect(await lastLine()).toMatch(new RegExp(` listening on http://127\\.0\\.0\\.1:${port}$`));
    expect(answerWhileMainBlocked(port)).toBeNull();
    const res = await fetch(`http://127.0.0.1:${port}/`, { headers: { host: 'x.test' } });
    expect(await res.text()).toBe('here');
  });

  it('2 is two serving threads; 0 (automatic) starts on the main thread', async () => {
    await configure({ servingThreads: 2 });
    const engine = await webEngine(d);
    expect([engine.onMainThread, engine.servingThreads]).toEqual([false, 2]);
    expect(answerWhileMainBlocked(port)).toBe('here');
    await configure({ servingThreads: 0 });
    expect(engine.onMainThread).toBe(true);
    expect(await lastLine()).toMatch(new RegExp(` listening on http://127\\.0\\.0\\.1:${port}$`));
  });

  it('the program log says where the rules went, the main thread counting as none', async () => {
    await configure({ servingThreads: 1 });
    const logs = await d.call<{ logs: Array<{ log: string }> }>('GET', '/api/logs?pre=0', undefined, EN);
    expect(logs.logs.map((l) => l.log).filter((l) => l.includes('web rules moved')).at(-1)).toMatch(/web rules moved from 0 to 1 serving thread\(s\) \(1 rules\)/);
  });
});

describe('web settings saved by an earlier version', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  /** A data directory whose lucky.db holds `settings` for the web module as they were written. */
  async function saved(settings: object): Promise<string> {
    const dir = mkdtempSync(join(tmpdir(), 'lucky-web-upgrade-'));
    dirs.push(dir);
    await (await startTestDaemon({ dataDir: dir })).close();
    const db = openDb(dir);
    db.prepare('INSERT INTO module_settings (module, data, updated_at) VALUES (?, ?, ?)').run('web', JSON.stringify(settings), Date.now());
    db.close();
    return dir;
  }

  it('servingThreads 1 in lucky.db keeps meaning the main thread; other counts keep theirs', async () => {
    for (const [old, now] of [
      [{ accessLogShow: 20, servingThreads: 1 }, { accessLogShow: 20, servingThreads: 1, mainThreadOnly: true }],
      [{ accessLogShow: 20, servingThreads: 0 }, { accessLogShow: 20, servingThreads: 0, mainThreadOnly: false }],
      [{ accessLogShow: 20, servingThreads: 3 }, { accessLogShow: 20, servingThreads: 3, mainThreadOnly: false }],
    ] as const) {
      const d = await startTestDaemon({ dataDir: await saved(old), env: NODE_PATH });
      try {
        expect((await d.call<{ configure: WebConfigure }>('GET', '/api/web/configure')).configure).toEqual(now);
        if (old.servingThreads === 1) {
          const port = await freePort();
          expect((await d.call('POST', '/api/web/rules', { name: 'old', address: '127.0.0.1', port, defaultService: { type: 'text', body: 'old' } })).ret).toBe(0);
          expect((await webEngine(d)).onMainThread).toBe(true);
          expect(answerWhileMainBlocked(port)).toBeNull();
        }
      } finally {
        await d.close();
      }
    }
  });

  it('a backup written before keeps its meaning when restored', async () => {
    const d = await startTestDaemon();
    try {
      const download = await d.runtime.app.inject({ method: 'GET', url: '/api/configure?secrets=0', headers: { 'lucky-admin-token': d.token } });
      const backup = download.json() as { modules: Record<string, { settings: unknown }> };
      backup.modules.web = { ...(backup.modules.web as object), settings: { accessLogShow: 30, servingThreads: 1 } } as { settings: unknown };
      const boundary = '----lucky-upgrade';
      const payload = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="old.json"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(backup)}\r\n--${boundary}--\r\n`,
      );
      const staged = (
        await d.runtime.app.inject({ method: 'POST', url: '/api/configure', payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'lucky-admin-token': d.token } })
      ).json() as { ret: number; key: string; summary: { modules: Record<string, { settings: boolean }> } };
      expect(staged.ret).toBe(0);
      expect(staged.summary.modules.web?.settings).toBe(true);
      expect((await d.call('GET', `/api/restoreconfigureconfirm?key=${staged.key}`)).ret).toBe(0);
      expect((await d.call<{ configure: WebConfigure }>('GET', '/api/web/configure')).configure).toEqual({ accessLogShow: 30, servingThreads: 1, mainThreadOnly: true });
      // A client sending today's shape means today's meaning.
      expect((await d.call('PUT', '/api/web/configure', { accessLogShow: 30, servingThreads: 1 })).ret).toBe(0);
      expect((await d.call<{ configure: WebConfigure }>('GET', '/api/web/configure')).configure.mainThreadOnly).toBe(false);
    } finally {
      await d.close();
    }
  });
});
