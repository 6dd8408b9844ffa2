/**
 * GET /metrics on a real daemon listening on loopback: who may read it, what promtool says of it,
 * and Debian's Prometheus scraping it every second, its series read back with PromQL over
 * Prometheus's own HTTP API. Traffic goes through a real web rule (on each engine) to a real backend.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_HEADER } from '@lucky/contracts';
import { DEFAULT_ENV } from '../core/env.js';
import { freePort, startTestDaemon, type TestDaemon } from '../test/harness.js';
import { makeCert } from '../test/certs.js';
import { fakeIpServer, receiver } from '../lib/dns/testing/fakes.js';

const PROMETHEUS = '/usr/bin/prometheus';
const PROMTOOL = '/usr/bin/promtool';
const EN = { headers: { 'lucky-lang': 'en_US' } };

/** One request on a connection of its own, with a Host that picks the web rule's site; resolves with the status. */
function hit(port: number, host: string, path = '/'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

async function scrape(d: TestDaemon, headers: Record<string, string> = {}): Promise<{ status: number; type: string; body: string }> {
  const res = await fetch(`http://127.0.0.1:${d.runtime.port()}/metrics`, { headers });
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
}

/** What promtool's lint says of an exposition ('' when nothing). */
function promtoolSays(body: string): { status: number | null; out: string } {
  const r = spawnSync(PROMTOOL, ['check', 'metrics'], { input: body, encoding: 'utf8', timeout: 20_000 });
  return { status: r.status, out: r.stdout + r.stderr };
}

/** The value of one sample of the exposition, by its name and labels as written. */
function sample(body: string, series: string): number | undefined {
  const line = body.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

interface Setup {
  d: TestDaemon;
  backend: Server;
  web: { key: string; port: number };
  deadBackend: string;
  token: string;
  dir: string;
}

async function setUp(engine: 'native' | 'node'): Promise<Setup> {
  const dir = mkdtempSync(join(tmpdir(), 'lucky-metrics-'));
  const d = await startTestDaemon({ env: { ...DEFAULT_ENV, webEngine: engine } });
  await d.runtime.listen();
  const backend = createServer((_req, res) => res.end('backend\n'));
  await new Promise<void>((r) => backend.listen(0, '127.0.0.1', () => r()));
  const backendPort = (backend.address() as { port: number }).port;
  // Nothing listens here: the sub rule's backend refuses, and is marked down for an hour.
  const deadBackend = `http://127.0.0.1:${await freePort()}`;
  const port = await freePort();
  const created = await d.call<{ key: string }>('POST', '/api/web/rules', {
    name: 'metrics web',
    address: '127.0.0.1',
    port,
    defaultService: { type: 'proxy', targets: [`http://127.0.0.1:${backendPort}`] },
    subRules: [{ name: 'down', domains: ['down.test'], service: { type: 'proxy', targets: [deadBackend], failTimeoutSeconds: 3600 } }],
  });
  expect(created.ret).toBe(0);
  const cert = makeCert(dir, 'store', ['metrics.test'], { days: 30 });
  (await d.runtime.deps.modules.service('certificates')).put('metrics-cert', cert.cert, cert.key);
  const token = await d.call<{ token: string }>('POST', '/api/safe/tokens', { name: 'prometheus', scope: 'read' });
  expect(token.ret).toBe(0);
  return { d, backend, web: { key: created.key, port }, deadBackend, token: token.token, dir };
}

async function tearDown(s: Setup | undefined): Promise<void> {
  if (!s) return;
  await s.d.close();
  await new Promise((r) => s.backend.close(r));
  rmSync(s.dir, { recursive: true, force: true });
}

describe.each(['native', 'node'] as const)('GET /metrics, web rules on the %s engine', (engine) => {
  let s: Setup;
  beforeAll(async () => {
    s = await setUp(engine);
  }, 60_000);
  afterAll(() => tearDown(s));

  it('counts a web rule\'s requests by status class, its bytes, durations and backends from the counters the engine keeps', async () => {
    for (let i = 0; i < 7; i++) expect(await hit(s.web.port, 'site.test')).toBe(200);
    expect(await hit(s.web.port, 'down.test')).toBe(502);
    const { status, type, body } = await scrape(s.d, { authorization: `Bearer ${s.token}` });
    expect(status).toBe(200);
    expect(type).toBe('text/plain; version=0.0.4; charset=utf-8');
    const r = `rule="${s.web.key}"`;
    expect(sample(body, `lucky_web_requests_total{${r},code="2xx"}`)).toBe(7);
    expect(sample(body, `lucky_web_requests_total{${r},code="5xx"}`)).toBe(1);
    expect(sample(body, `lucky_web_requests_total{${r},code="4xx"}`)).toBe(0);
    expect(sample(body, `lucky_web_request_duration_seconds_count{${r}}`)).toBe(8);
    expect(sample(body, `lucky_web_request_duration_seconds_bucket{${r},le="+Inf"}`)).toBe(8);
    expect(sample(body, `lucky_web_request_duration_seconds_sum{${r}}`)).toBeGreaterThan(0);
    expect(sample(body, `lucky_web_received_bytes_total{${r}}`)).toBeGreaterThan(8 * 30);
    expect(sample(body, `lucky_web_sent_bytes_total{${r}}`)).toBeGreaterThan(7 * 'backend\n'.length);
    expect(body).toMatch(new RegExp(`^lucky_web_upstream_up\\{${r},site="",backend="http://127\\.0\\.0\\.1:\\d+"\\} 1$`, 'm'));
    expect(sample(body, `lucky_web_upstream_up{${r},site="down",backend="${s.deadBackend}"}`)).toBe(0);
    expect(sample(body, `lucky_rule_info{module="web",${r},name="metrics web"}`)).toBe(1);
    expect(sample(body, `lucky_rule_up{module="web",${r}}`)).toBe(1);
    expect(sample(body, `lucky_module_enabled{module="web"}`)).toBe(1);
    const left = sample(body, 'lucky_certificate_expires_in_seconds{name="metrics-cert"}')!;
    expect(left).toBeGreaterThan(29 * 86400);
    expect(left).toBeLessThanOrEqual(30 * 86400);
    expect(sample(body, 'process_resident_memory_bytes')).toBeGreaterThan(10e6);
    expect(sample(body, 'process_open_fds')).toBeGreaterThan(5);
    // Bounded labels: neither the path nor the client's address becomes a label.
    await hit(s.web.port, 'site.test', '/some/unique/path-1234');
    const after = (await scrape(s.d, { authorization: `Bearer ${s.token}` })).body;
    expect(after).not.toContain('path-1234');
    expect(after).not.toContain('site.test');
    expect(sample(after, `lucky_web_requests_total{${r},code="2xx"}`)).toBe(8);
  }, 20_000);

  if (engine !== 'native') return;

  it('refuses a scrape without a token (401, in the caller\'s language); a wrong token counts as a failed login; an allowed address needs none, at once', async () => {
    const none = await scrape(s.d, { 'lucky-lang': 'en_US' });
    expect(none.status).toBe(401);
    expect(JSON.parse(none.body)).toEqual({ ret: -1, msg: expect.stringContaining('Reading /metrics needs an API token') });
    const zh = await scrape(s.d, { 'lucky-lang': 'zh_CN' });
    expect(JSON.parse(zh.body).msg).toContain('读取 /metrics 需要 API 令牌');
    expect((await scrape(s.d, { authorization: 'Bearer lk_not-a-token' })).status).toBe(401);
    expect((await scrape(s.d, { [TOKEN_HEADER]: s.d.token })).status).toBe(200);

    // A bad address is refused by the contract's schema and changes nothing.
    const bad = await s.d.call('PUT', '/api/baseconfigure', { MetricsAllowFrom: ['not-an-address'] }, EN);
    expect(bad.ret).toBe(1);
    expect(bad.msg).toContain('is not a valid IP address or range');
    expect((await scrape(s.d)).status).toBe(401);
    expect((await s.d.call('PUT', '/api/baseconfigure', { MetricsAllowFrom: ['127.0.0.0/8'] })).ret).toBe(0);
    expect((await scrape(s.d)).status).toBe(200);
    // A partial update of another setting keeps the list.
    expect((await s.d.call('PUT', '/api/baseconfigure', { LogMaxSize: 2000 })).ret).toBe(0);
    expect((await scrape(s.d)).status).toBe(200);
    expect((await s.d.call('PUT', '/api/baseconfigure', { MetricsAllowFrom: ['10.9.8.7'] })).ret).toBe(0);
    expect((await scrape(s.d)).status).toBe(401);
    expect((await s.d.call('PUT', '/api/baseconfigure', { MetricsAllowFrom: [] })).ret).toBe(0);
  });

  it('gives each module\'s series from its own figures: forwarding, scheduled tasks, wake-on-LAN, storages', async () => {
    const backendPort = (s.backend.address() as { port: number }).port;
    const fwdPort = await freePort();
    const fwd = await s.d.call<{ key: string }>('POST', '/api/portforward/rules', { name: 'fwd', types: ['tcp4'], listenHost: '127.0.0.1', listenPorts: String(fwdPort), targets: ['127.0.0.1'], targetPorts: String(backendPort) });
    expect(fwd.ret, fwd.msg).toBe(0);
    const cron = await s.d.call<{ key: string }>('POST', '/api/cron/rules', { name: 'job', schedule: { kind: 'cron', expr: '0 0 0 1 1 *', every: 3600 }, timezone: 'UTC', actions: [{ type: 'command', line: 'true', onFailure: 'stop' }] });
    expect(cron.ret, cron.msg).toBe(0);
    // Online: something accepts on its check port (the backend); the second device's port refuses.
    const nas = await s.d.call<{ key: string }>('POST', '/api/wol/rules', { name: 'NAS', macs: ['aa:bb:cc:dd:ee:ff'], broadcast: '127.0.0.1', checkHost: '127.0.0.1', checkPort: backendPort });
    const off = await s.d.call<{ key: string }>('POST', '/api/wol/rules', { name: 'PC', macs: ['aa:bb:cc:dd:ee:01'], broadcast: '127.0.0.1', checkHost: '127.0.0.1', checkPort: await freePort() });
    expect([nas.ret, off.ret]).toEqual([0, 0]);
    const storageDir = mkdtempSync(join(s.dir, 'storage-'));
    writeFileSync(join(storageDir, 'a.bin'), Buffer.alloc(12345));
    const storage = await s.d.call<{ key: string }>('POST', '/api/storage/rules', { name: 'files', path: storageDir });
    expect(storage.ret, storage.msg).toBe(0);

    for (let i = 0; i < 3; i++) expect(await hit(fwdPort, 'fwd.test')).toBe(200);
    expect((await s.d.call('POST', `/api/cron/rules/${cron.key}/run?wait=1`)).ret).toBe(0);
    const auth = { authorization: `Bearer ${s.token}` };
    let body = '';
    // The storage's walk runs in the background after the first look, as on the console.
    for (let i = 0; i < 40 && !/^lucky_storage_used_bytes\{/m.test(body); i++) {
      body = (await scrape(s.d, auth)).body;
      await new Promise((r) => setTimeout(r, 100));
    }
    const f = `rule="${fwd.key}"`;
    expect(sample(body, `lucky_portforward_connections_total{${f}}`)).toBe(3);
    expect(sample(body, `lucky_portforward_sent_bytes_total{${f}}`)).toBeGreaterThan(3 * 'backend\n'.length);
    expect(sample(body, `lucky_portforward_listeners{${f}}`)).toBe(1);
    expect(sample(body, `lucky_cron_runs_total{rule="${cron.key}",result="ok"}`)).toBe(1);
    expect(sample(body, `lucky_cron_runs_total{rule="${cron.key}",result="failed"}`)).toBe(0);
    expect(sample(body, `lucky_cron_last_run_success{rule="${cron.key}"}`)).toBe(1);
    expect(sample(body, `lucky_wol_device_online{rule="${nas.key}"}`)).toBe(1);
    expect(sample(body, `lucky_wol_device_online{rule="${off.key}"}`)).toBe(0);
    expect(sample(body, `lucky_storage_used_bytes{rule="${storage.key}"}`)).toBe(12345);
    expect(sample(body, `lucky_storage_filesystem_size_bytes{rule="${storage.key}"}`)).toBeGreaterThan(0);
    expect(sample(body, `lucky_rule_info{module="wol",rule="${nas.key}",name="NAS"}`)).toBe(1);
    expect(promtoolSays(body)).toEqual({ status: 0, out: '' });
    for (const [m, k] of [['portforward', fwd.key], ['cron', cron.key], ['wol', nas.key], ['wol', off.key], ['storage', storage.key]] as const) {
      expect((await s.d.call('DELETE', `/api/${m}/rules/${k}?confirm=1`)).ret).toBe(0);
    }
  }, 30_000);

  it('counts a DDNS task\'s record syncs by result, with its last success', async () => {
    const ip = await fakeIpServer('203.0.113.9', '2001:db8::9');
    const provider = await receiver();
    try {
      provider.answer = { status: 200, body: 'good' };
      const task = await s.d.call<{ key: string }>('POST', '/api/ddns/rules', {
        name: 'home',
        provider: 'callback',
        recordType: 'A',
        domains: 'a.example.net\nb.example.net',
        ipv4: { urls: [`${ip.url}/`] },
        callback: { url: `${provider.url}/update?ip=#{ip}&domain=#{domain}`, method: 'GET', successCheck: { enable: true, text: 'good' } },
      });
      expect(task.ret, task.msg).toBe(0);
      const t0 = Date.now() / 1000;
      expect((await s.d.call('POST', `/api/ddns/rules/${task.key}/sync?wait=20`)).ret).toBe(0);
      // Every call the provider answered so far was a record updated (the task's first run and the forced sync).
      const good = provider.calls.length;
      // The provider now refuses: a forced sync fails both records.
      provider.answer = { status: 200, body: 'nochg-refused' };
      expect((await s.d.call('POST', `/api/ddns/rules/${task.key}/sync?wait=20`)).ret).toBe(0);
      const body = (await scrape(s.d, { authorization: `Bearer ${s.token}` })).body;
      const r = `rule="${task.key}"`;
      expect(good).toBeGreaterThanOrEqual(2);
      expect(sample(body, `lucky_ddns_record_syncs_total{${r},result="updateSucceeded"}`)).toBe(good);
      expect(sample(body, `lucky_ddns_record_syncs_total{${r},result="updateFailed"}`)).toBe(provider.calls.length - good);
      expect(provider.calls.length - good).toBe(2);
      expect(sample(body, `lucky_ddns_records_failed{${r}}`)).toBe(2);
      expect(sample(body, `lucky_ddns_last_success_timestamp_seconds{${r}}`)).toBeGreaterThanOrEqual(Math.floor(t0) - 1);
      expect(sample(body, `lucky_rule_error{module="ddns",${r}}`)).toBe(1);
      expect(promtoolSays(body)).toEqual({ status: 0, out: '' });
      expect((await s.d.call('DELETE', `/api/ddns/rules/${task.key}`)).ret).toBe(0);
    } finally {
      await ip.close();
      await provider.close();
    }
  }, 60_000);

  it('promtool check metrics finds nothing to say about the exposition', async () => {
    const { body } = await scrape(s.d, { authorization: `Bearer ${s.token}` });
    expect(body).toContain('lucky_web_request_duration_seconds_bucket');
    expect(promtoolSays(body)).toEqual({ status: 0, out: '' });
  });

  it('Prometheus scrapes it every second with the read token; PromQL over its API returns the rule\'s requests and the certificate\'s expiry, and the scrape without a token is down', async () => {
    const promPort = await freePort();
    const target = `127.0.0.1:${s.d.runtime.port()}`;
    const config = [
      'global: { scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s }',
      'scrape_configs:',
      '  - job_name: lucky',
      '    scrape_interval: 1s',
      `    authorization: { type: Bearer, credentials: "${s.token}" }`,
      `    static_configs: [{ targets: ["${target}"] }]`,
      '  - job_name: lucky-without-token',
      '    scrape_interval: 1s',
      `    static_configs: [{ targets: ["${target}"] }]`,
      '',
    ].join('\n');
    writeFileSync(join(s.dir, 'prometheus.yml'), config);
    const prom: ChildProcess = spawn(
      PROMETHEUS,
      [`--config.file=${join(s.dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(s.dir, 'tsdb')}`, `--web.listen-address=127.0.0.1:${promPort}`, '--log.level=warn'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let log = '';
    prom.stderr!.on('data', (c) => (log += c));
    try {
      const query = async (q: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> => {
        const res = await fetch(`http://127.0.0.1:${promPort}/api/v1/query?query=${encodeURIComponent(q)}`).catch(() => null);
        if (!res?.ok) return [];
        return ((await res.json()) as { data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } }).data.result;
      };
      const until = async (q: string, ok: (v: number) => boolean) => {
        const end = Date.now() + 30_000;
        let last: unknown = null;
        while (Date.now() < end) {
          const r = await query(q);
          last = r;
          if (r.length === 1 && ok(Number(r[0]!.value[1]))) return r[0]!;
          await new Promise((w) => setTimeout(w, 250));
        }
        throw new Error(`${q}: ${JSON.stringify(last)}; prometheus said: ${log}`);
      };
      const before = Number((await until(`lucky_web_requests_total{rule="${s.web.key}",code="2xx"}`, (v) => v >= 0)).value[1]);
      for (let i = 0; i < 5; i++) expect(await hit(s.web.port, 'site.test')).toBe(200);
      await until(`lucky_web_requests_total{rule="${s.web.key}",code="2xx"}`, (v) => v === before + 5);
      const cert = await until('lucky_certificate_expires_in_seconds{name="metrics-cert"}', (v) => v > 29 * 86400 && v <= 30 * 86400);
      expect(cert.metric).toMatchObject({ job: 'lucky', name: 'metrics-cert' });
      await until(`sum by (rule) (lucky_web_request_duration_seconds_count{rule="${s.web.key}"})`, (v) => v >= before + 6);
      await until(`lucky_web_upstream_up{rule="${s.web.key}",site="down"}`, (v) => v === 0);
      await until('up{job="lucky"}', (v) => v === 1);
      await until('up{job="lucky-without-token"}', (v) => v === 0);
    } finally {
      prom.kill('SIGTERM');
      await new Promise((r) => prom.once('exit', r));
    }
  }, 60_000);
});
