/**
 * A real daemon with WebDAV, for the module's client tests: a WebDAV rule started and waited for.
 * Storages and storage users come from test/storages.ts.
 */
import type { WebdavRuleInput, WebdavRuleView } from '@lucky/contracts';
import { freePort, startTestDaemon, type TestDaemon } from '../../../test/harness.js';
import { EN } from '../../../test/storages.js';

export async function ruleView(d: TestDaemon, key: string): Promise<WebdavRuleView> {
  return (await d.call<{ rule: WebdavRuleView }>('GET', `/api/webdav/rules/${key}`, undefined, EN)).rule;
}

/** Saves a WebDAV rule and waits until it serves; returns its key and base URL. */
export async function makeDav(d: TestDaemon, rule: Partial<WebdavRuleInput> & Pick<WebdavRuleInput, 'mounts'>): Promise<{ key: string; port: number; url: string }> {
  const port = rule.port ?? (await freePort());
  const r = await d.call<{ key: string }>('POST', '/api/webdav/rules', { name: `dav${port}`, address: '127.0.0.1', ...rule, port }, EN);
  if (r.ret !== 0) throw new Error(`webdav rule not saved: ${JSON.stringify(r)}`);
  for (let i = 0; i < 200; i++) {
    const v = await ruleView(d, r.key);
    if (v.status?.state === 'running') break;
    if (v.status?.state === 'error') throw new Error(`webdav rule failed: ${v.status.message}`);
    await new Promise((res) => setTimeout(res, 25));
  }
  const prefix = rule.prefix && rule.prefix !== '/' ? `${rule.prefix}/` : '/';
  return { key: r.key, port, url: `${rule.tls ? 'https' : 'http'}://127.0.0.1:${port}${prefix}` };
}

export { freePort, startTestDaemon, type TestDaemon };
