import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../test/harness.js';

describe("the console's files", () => {
  let d: TestDaemon;
  let root: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'lucky-console-'));
    const dir = join(root, 'dist');
    mkdirSync(join(dir, 'assets'), { recursive: true });
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Lucky</title>');
    writeFileSync(join(dir, 'assets', 'app-abc123.js'), 'console.log(1)');
    writeFileSync(join(root, 'secret.txt'), 'outside');
    d = await startTestDaemon({ consoleDir: dir });
  });
  afterAll(async () => {
    await d.close();
    rmSync(root, { recursive: true, force: true });
  });
  const get = (url: string, headers: Record<string, string> = {}) => d.runtime.app.inject({ method: 'GET', url, headers });

  it('serves index.html uncached and hashed assets cached for good, with their types', async () => {
    const index = await get('/');
    expect(index.statusCode).toBe(200);
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(index.headers['cache-control']).toBe('no-cache');
    expect(index.body).toContain('<title>Lucky</title>');
    const js = await get('/assets/app-abc123.js');
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.body).toBe('console.log(1)');
    const head = await d.runtime.app.inject({ method: 'HEAD', url: '/assets/app-abc123.js' });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
  });

  it('answers an unchanged file with 304', async () => {
    const first = await get('/assets/app-abc123.js');
    const again = await get('/assets/app-abc123.js', { 'if-none-match': String(first.headers.etag) });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('never reaches outside its directory, and leaves /api to the API', async () => {
    for (const url of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/%252e%252e/secret.txt', '/..%5csecret.txt', '/index.html%00.js', '/%E0%A4%A']) {
      const r = await get(url);
      // A broken escape is refused by Fastify itself (400) before any file is looked for.
      expect([400, 404], `${url}: ${r.statusCode}`).toContain(r.statusCode);
      expect(r.body, url).not.toContain('outside');
    }
    expect((await get('/missing.js')).statusCode).toBe(404);
    const api = await get('/api/nothing-here', { 'lucky-admin-token': d.token });
    expect(api.statusCode).toBe(200);
    expect(api.json()).toMatchObject({ ret: 3 });
  });
});
