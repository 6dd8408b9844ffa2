/**
 * Scheduled tasks against the real daemon: real timers, real child processes, real sockets, the
 * real lucky.db across a restart.
 */
import { createSocket, type Socket } from 'node:dgram';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ZCronTaskFields, type CronRun, type CronTaskInput, type CronTaskView } from '@lucky/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../core/db.js';
import { startTestDaemon, type TestDaemon } from '../../test/harness.js';

const EN = { headers: { 'lucky-lang': 'en_US' } };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const task = (name: string, more: Partial<CronTaskInput> = {}): CronTaskInput => ({
  name,
  schedule: { kind: 'cron', expr: '0 0 0 1 1 *', every: 3600 },
  timezone: 'UTC',
  actions: [{ type: 'command', line: 'echo hi', onFailure: 'stop' }],
  ...more,
});

describe('cron module over the API', () => {
  let d: TestDaemon;
  let work: string;
  const create = async (t: CronTaskInput) => {
    const r = await d.call<{ key: string }>('POST', '/api/cron/rules', t, EN);
    expect(r.ret, r.msg).toBe(0);
    return r.key;
  };
  const runs = async (key: string) => (await d.call<{ runs: CronRun[] }>('GET', `/api/cron/rules/${key}/runs`, undefined, EN)).runs;
  const runNow = async (key: string) => d.call<{ run: CronRun | null; msg: string }>('POST', `/api/cron/rules/${key}/run?wait=1`, undefined, EN);
  const view = async (key: string) => (await d.call<{ rule: CronTaskView }>('GET', `/api/cron/rules/${key}`, undefined, EN)).rule;

  beforeAll(async () => {
    d = await startTestDaemon();
    work = mkdtempSync(join(tmpdir(), 'lucky-cron-'));
  });
  afterAll(async () => {
    await d.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('fires a "* * * * * *" task within each of its seconds (real clock)', async () => {
    const key = await create(task('every second', { schedule: { kind: 'cron', expr: '* * * * * *', every: 1 }, actions: [{ type: 'command', line: 'true' }] }));
    const got = await waitFor('3 runs', async () => ((await runs(key)).length >= 3 ? runs(key) : undefined), 6000);
    await d.call('PUT', `/api/cron/rules/${key}/enable`, { enable: false });
    const starts = got.map((r) => r.start).sort();
    for (const s of starts) expect(s % 1000, `started ${s % 1000} ms into its second`).toBeLessThan(300);
    // One run a second: consecutive runs in consecutive seconds.
    const secs = starts.map((s) => Math.floor(s / 1000));
    expect(new Set(secs).size).toBe(secs.length);
    expect(got.every((r) => r.trigger === 'schedule' && r.result === 'ok')).toBe(true);
    const v = await view(key);
    expect(v).toMatchObject({ scheduleText: 'every second', running: false, lastRun: { result: 'ok' } });
    await d.call('DELETE', `/api/cron/rules/${key}`);
  });

  it('shows the next run and the next five times before saving', async () => {
    const r = await d.call<{ times: number[]; text: string; timezone: string }>('POST', '/api/cron/nextruns', { schedule: { kind: 'cron', expr: '0 30 2 * * *' }, timezone: 'Asia/Shanghai' }, EN);
    expect(r.ret).toBe(0);
    expect(r.times).toHaveLength(5);
    for (const t of r.times) expect(new Date(t).toISOString()).toMatch(/T18:30:00\.000Z$/);
    expect(r).toMatchObject({ text: 'every day at 02:30', timezone: 'Asia/Shanghai' });
    const zh = await d.call<{ text: string }>('POST', '/api/cron/nextruns', { schedule: { kind: 'interval', every: 300 } });
    expect(zh.text).toBe('每 5 分钟');
    expect(await d.call('POST', '/api/cron/nextruns', { schedule: { kind: 'cron', expr: '99 * * * * *' } }, EN)).toMatchObject({ ret: 1, msg: expect.stringMatching(/^invalid cron expression: /) });
    const key = await create(task('hourly', { schedule: { kind: 'cron', expr: '@hourly' } }));
    const v = await view(key);
    expect(v.nextRun).toBe(Math.ceil((Date.now() + 1) / 3_600_000) * 3_600_000);
    await d.call('DELETE', `/api/cron/rules/${key}`);
  });

  it('never overlaps runs of one task: skipped and logged, or queued', async () => {
    const skip = await create(task('slow skip', { schedule: { kind: 'cron', expr: '* * * * * *' }, overlap: 'skip', actions: [{ type: 'command', line: 'sleep 2.5' }] }));
    await waitFor('a skipped run', async () => (await view(skip)).skipped >= 2, 8000);
    await d.call('PUT', `/api/cron/rules/${skip}/enable`, { enable: false });
    const logs = (await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/cron/rules/${skip}/logs`, undefined, EN)).logs.map((l) => l.log);
    expect(logs.some((l) => l.includes('the previous run is still running: this run is skipped'))).toBe(true);
    // Never two at once: each run started after the previous one ended.
    const s = (await runs(skip)).reverse();
    for (let i = 1; i < s.length; i++) expect(s[i]!.start).toBeGreaterThanOrEqual(s[i - 1]!.start + s[i - 1]!.ms);

    const queue = await create(task('slow queue', { schedule: { kind: 'interval', every: 3600 }, overlap: 'queue', actions: [{ type: 'command', line: 'sleep 1' }] }));
    const first = d.call('POST', `/api/cron/rules/${queue}/run`, undefined, EN);
    expect((await first).ret).toBe(0);
    // The second waits for the first; a third while one waits is skipped.
    expect((await d.call('POST', `/api/cron/rules/${queue}/run`, undefined, EN)).ret).toBe(6);
    const q = await waitFor('two runs', async () => ((await runs(queue)).length >= 2 ? runs(queue) : undefined), 6000);
    expect(q[0]!.start).toBeGreaterThanOrEqual(q[1]!.start + q[1]!.ms);
    await d.call('DELETE', `/api/cron/rules/${skip}`);
    await d.call('DELETE', `/api/cron/rules/${queue}`);
  });

  it('kills the whole process group at the timeout (the shell\'s child too) and bounds the output', async () => {
    const pidFile = join(work, 'child.pid');
    const key = await create(
      task('outlives', {
        actions: [
          { type: 'command', line: `sleep 30 & echo $! > ${pidFile}; echo started; wait`, timeout: 1, onFailure: 'continue' },
          { type: 'command', line: 'head -c 100000 /dev/zero | tr "\\0" x; echo; echo END-OF-OUTPUT' },
        ],
      }),
    );
    const t0 = Date.now();
    const r = await runNow(key);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(r.run!.result).toBe('failed');
    expect(r.run!.actions[0]).toMatchObject({ ok: false, summary: 'command timed out (1 s): its whole process group was killed', output: 'started\n' });
    const child = Number(readFileSync(pidFile, 'utf8'));
    expect(child).toBeGreaterThan(0);
    await waitFor('the sleeping child gone', () => !alive(child), 3000);
    // 100 000 bytes of output kept within the module's 16 KiB: its beginning and its end.
    const big = r.run!.actions[1]!;
    expect(big).toMatchObject({ ok: true, truncated: true, summary: 'command exited with code 0' });
    expect(Buffer.byteLength(big.output)).toBeLessThan(16 * 1024 + 100);
    expect(big.output.startsWith('xxxx')).toBe(true);
    expect(big.output.trimEnd().endsWith('END-OF-OUTPUT')).toBe(true);
    await d.call('DELETE', `/api/cron/rules/${key}`);
  });

  it('stops at a failed action unless it says go on; a notification still says it failed', async () => {
    const hits: string[] = [];
    const srv = createServer((req, res) => {
      let b = '';
      req.on('data', (c) => (b += c));
      req.on('end', () => {
        hits.push(b);
        res.end('{"ok":true}');
      });
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as { port: number }).port;
    const key = await create(
      task('stops', {
        actions: [
          { type: 'command', line: 'exit 3' },
          { type: 'command', line: `touch ${join(work, 'never')}` },
          { type: 'notify', when: 'failure', webhook: { url: `http://127.0.0.1:${port}/n`, method: 'POST', body: '{"t":"#{taskName}","r":"#{result}","s":"#{summary}"}' } },
        ],
      }),
    );
    const r = await runNow(key);
    expect(r.run!.actions.map((a) => [a.type, a.ok])).toEqual([['command', false], ['notify', true]]);
    expect(r.run!.actions[0]!.summary).toBe('command exited with code 3');
    expect(existsSync(join(work, 'never'))).toBe(false);
    expect(JSON.parse(hits[0]!)).toEqual({ t: 'stops', r: 'failed', s: 'command: command exited with code 3' });
    srv.close();
    await d.call('DELETE', `/api/cron/rules/${key}`);
  });

  it('calls a URL with the webhook\'s variables, judged by status and text', async () => {
    const got: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }> = [];
    const srv: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        got.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        res.statusCode = req.url!.startsWith('/bad') ? 500 : 200;
        res.end('all good here');
      });
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(srv.address() as { port: number }).port}`;
    const key = await create(
      task('url', {
        actions: [
          { type: 'url', url: `${base}/hook?task=#{taskName}&by=#{trigger}`, method: 'PUT', headers: ['X-Task: #{taskKey}'], body: '{"name":"#{taskName}"}', successCheck: { enable: true, text: 'good' }, onFailure: 'continue' },
          { type: 'url', url: `${base}/hook2`, successCheck: { enable: true, text: 'missing' }, onFailure: 'continue' },
          { type: 'url', url: `${base}/bad` },
        ],
      }),
    );
    const r = await runNow(key);
    expect(got[0]).toMatchObject({ method: 'PUT', url: '/hook?task=url&by=manual', body: '{"name":"url"}' });
    expect(got[0]!.headers['x-task']).toBe(key);
    expect(r.run!.actions.map((a) => [a.ok, a.summary])).toEqual([
      [true, 'ok (HTTP 200)'],
      [false, 'request failed: the answer does not contain "missing"'],
      [false, expect.stringMatching(/^request failed: .*500/)],
    ]);
    expect(r.run!.actions[0]!.output).toBe('all good here');
    srv.close();
    await d.call('DELETE', `/api/cron/rules/${key}`);
  });

  it('header values of a URL action are secrets: masked, kept when the mask comes back to the same URL, left out of backups', async () => {
    const got: Array<IncomingMessage['headers']> = [];
    const srv: Server = createServer((req, res) => {
      got.push(req.headers);
      res.end('ok');
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(srv.address() as { port: number }).port}`;
    try {
      const key = await create(task('token', { actions: [{ type: 'url', url: `${base}/a`, headers: ['Authorization: Bearer cron-token-3', 'X-Plain: visible-value'] }] }));
      const shown = await view(key);
      expect(shown.actions[0]).toMatchObject({ type: 'url', headers: ['Authorization: ******', 'X-Plain: ******'] });
      expect(JSON.stringify(await d.call('GET', '/api/cron/rules'))).not.toContain('cron-token-3');
      // The view sent back (renamed): the stored lines are kept and sent.
      const keep = Object.fromEntries(Object.entries(shown).filter(([f]) => f in ZCronTaskFields.shape));
      expect((await d.call('PUT', `/api/cron/rules/${key}`, { ...keep, name: 'token renamed' }, EN)).ret).toBe(0);
      expect((await runNow(key)).run!.result).toBe('ok');
      expect(got[0]).toMatchObject({ authorization: 'Bearer cron-token-3', 'x-plain': 'visible-value' });
      const backup = async (secrets: 0 | 1) => (await d.runtime.app.inject({ method: 'GET', url: `/api/configure?secrets=${secrets}`, headers: { 'lucky-admin-token': d.token } })).body;
      expect(await backup(0)).not.toContain('cron-token-3');
      expect(await backup(0)).toContain('Authorization: ******');
      expect(await backup(1)).toContain('Authorization: Bearer cron-token-3');
      // Pointed at another URL, a masked line has nothing behind it: the token never follows unasked.
      const moved = { ...keep, name: 'token renamed', actions: [{ ...(shown.actions[0] as object), url: `${base}/b`, headers: ['Authorization: ******', 'X-Typed: again'] }] };
      expect((await d.call('PUT', `/api/cron/rules/${key}`, moved, EN)).ret).toBe(0);
      expect((await runNow(key)).run!.result).toBe('ok');
      expect(got[1]!.authorization).toBeUndefined();
      expect(got[1]!['x-typed']).toBe('again');
      await d.call('DELETE', `/api/cron/rules/${key}`);
    } finally {
      srv.close();
    }
  });

  it('switches a rule of another module, seen in that module\'s API', async () => {
    const { freePort } = await import('../../test/harness.js');
    const pf = await d.call<{ key: string }>('POST', '/api/portforward/rules', { name: 'fw', types: ['tcp4'], listenHost: '127.0.0.1', listenPorts: String(await freePort()), targets: ['127.0.0.1'], targetPorts: '9' });
    expect(pf.ret, pf.msg).toBe(0);
    const key = await create(task('switch off', { actions: [{ type: 'switch', module: 'portforward', rule: pf.key, enable: false }] }));
    const r = await runNow(key);
    expect(r.run!.actions[0]).toMatchObject({ ok: true, summary: 'port forwarding rule "fw" switched off' });
    const seen = await d.call<{ rule: { enable: boolean; status: { state: string } } }>('GET', `/api/portforward/rules/${pf.key}`);
    expect(seen.rule).toMatchObject({ enable: false, status: { state: 'disabled' } });

    // The target deleted later: the run says so, the daemon goes on.
    await d.call('DELETE', `/api/portforward/rules/${pf.key}`);
    const gone = await runNow(key);
    expect(gone.run!.result).toBe('failed');
    expect(gone.run!.actions[0]!.summary).toBe(`the target rule no longer exists (port forwarding, ${pf.key})`);
    const zh = await d.call<{ runs: CronRun[] }>('GET', `/api/cron/rules/${key}/runs`);
    expect(zh.runs[0]!.actions[0]!.summary).toBe(`目标规则已不存在（端口转发，${pf.key}）`);
    expect((await d.call('GET', '/api/cron/rules')).ret).toBe(0);
    await d.call('DELETE', `/api/cron/rules/${key}`);
  });

  it('wakes a WOL device through its module: the magic packet reaches a UDP listener', async () => {
    const rx: Socket = createSocket('udp4');
    const got: Buffer[] = [];
    rx.on('message', (m) => got.push(m));
    await new Promise<void>((r) => rx.bind(0, '127.0.0.1', r));
    const dev = await d.call<{ key: string }>('POST', '/api/wol/rules', { name: 'pc', macs: ['02:00:00:aa:bb:cc'], broadcast: '127.0.0.1', port: rx.address().port, repeat: 1 });
    const key = await create(task('wake', { actions: [{ type: 'wol', device: dev.key }] }));
    const r = await runNow(key);
    expect(r.run!.actions[0]).toMatchObject({ ok: true, summary: `wake: sent 1 magic packet(s) to 127.0.0.1:${rx.address().port}` });
    await waitFor('the packet', () => got.length >= 1, 2000);
    // 6 × FF, then the MAC 16 times (WOL's own tests check the packet in detail).
    expect(got[0]!.toString('hex')).toBe('ff'.repeat(6) + '020000aabbcc'.repeat(16));
    rx.close();
    await d.call('DELETE', `/api/cron/rules/${key}`);
    await d.call('DELETE', `/api/wol/rules/${dev.key}`);
  });

  it('shuts a WOL device down through its module (actions service): the device\'s command runs, its failure is the run\'s', async () => {
    const file = join(work, 'shut-by-cron');
    const dev = await d.call<{ key: string }>('POST', '/api/wol/rules', { name: 'office pc', macs: ['02:00:00:aa:bb:01'], shutdown: { kind: 'command', command: `echo "$LUCKY_DEVICE" > ${file}` } });
    expect(dev.ret, dev.msg).toBe(0);
    const choices = await d.call<{ rules: Record<string, Array<{ key: string }>> }>('GET', '/api/cron/choices');
    expect(choices.rules.wol!.map((r) => r.key)).toContain(dev.key);
    const key = await create(task('shut down', { actions: [{ type: 'wolShutdown', device: dev.key }] }));
    const r = await runNow(key);
    expect(r.run!.actions[0]).toMatchObject({ type: 'wolShutdown', ok: true, summary: 'shutdown: command exited with code 0' });
    expect(readFileSync(file, 'utf8')).toBe('office pc\n');
    // The device's own log says so too.
    const logs = (await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/wol/rules/${dev.key}/logs`, undefined, EN)).logs.map((l) => l.log);
    expect(logs.some((l) => l.endsWith('shutdown: command exited with code 0'))).toBe(true);
    // A device whose command fails, and one with no shutdown at all: the run says why.
    const failing = await d.call<{ key: string }>('POST', '/api/wol/rules', { name: 'stubborn', macs: ['02:00:00:aa:bb:02'], shutdown: { kind: 'command', command: 'exit 4' } });
    const bare = await d.call<{ key: string }>('POST', '/api/wol/rules', { name: 'bare', macs: ['02:00:00:aa:bb:03'] });
    const both = await create(task('shut two', { actions: [{ type: 'wolShutdown', device: failing.key, onFailure: 'continue' }, { type: 'wolShutdown', device: bare.key }] }));
    const r2 = await runNow(both);
    expect(r2.run!.actions.map((a) => [a.ok, a.summary])).toEqual([
      [false, 'shutdown failed: command exited with code 4'],
      [false, 'the device has no shutdown command or URL'],
    ]);
    // The target must exist when the task is saved.
    await d.call('DELETE', `/api/wol/rules/${bare.key}`);
    expect(await d.call('POST', '/api/cron/rules', task('shut gone', { actions: [{ type: 'wolShutdown', device: bare.key }] }), EN)).toMatchObject({ ret: 1, msg: `action 1: the chosen wake-on-LAN rule does not exist (${bare.key})` });
    for (const k of [key, both]) await d.call('DELETE', `/api/cron/rules/${k}`);
    for (const k of [dev.key, failing.key]) await d.call('DELETE', `/api/wol/rules/${k}`);
  });

  it('applies an edit in place: the running command goes on with the old actions, the next run takes the new ones', async () => {
    const started = join(work, 'upd.started');
    const finished = join(work, 'upd.finished');
    const old = task('edited while running', { actions: [{ type: 'command', line: `echo $$ > ${started}; sleep 2; touch ${finished}; echo old-actions` }] });
    const key = await create(old);
    expect((await d.call('POST', `/api/cron/rules/${key}/run`)).ret).toBe(0);
    await waitFor('the command to start', () => existsSync(started));
    const shell = Number(readFileSync(started, 'utf8'));
    const edited = { ...old, schedule: { kind: 'cron' as const, expr: '0 0 12 * * *', every: 3600 }, actions: [{ type: 'command' as const, line: 'echo new-actions' }] };
    expect((await d.call('PUT', `/api/cron/rules/${key}`, edited, EN)).ret).toBe(0);
    // Rescheduled at once, and still running: the edit did not stop the run.
    const v = await view(key);
    const noon = new Date();
    noon.setUTCHours(12, 0, 0, 0);
    if (noon.getTime() <= Date.now()) noon.setUTCDate(noon.getUTCDate() + 1);
    expect(v).toMatchObject({ running: true, nextRun: noon.getTime(), scheduleText: 'every day at 12:00' });
    expect(alive(shell)).toBe(true);
    const done = await waitFor('the run to end', async () => ((await runs(key))[0] ?? undefined), 10_000);
    expect(done).toMatchObject({ result: 'ok', actions: [{ ok: true, output: 'old-actions\n', summary: 'command exited with code 0' }] });
    expect(existsSync(finished)).toBe(true);
    const logs = (await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/cron/rules/${key}/logs`, undefined, EN)).logs.map((l) => l.log);
    expect(logs.some((l) => l.endsWith('changes applied'))).toBe(true);
    expect(logs.some((l) => l.includes('the daemon stopped the task'))).toBe(false);
    expect((await runNow(key)).run!.actions[0]!.output).toBe('new-actions\n');
    await d.call('DELETE', `/api/cron/rules/${key}`);
  });

  it('writes Settings → backup\'s own file into a folder, keeps the last N, and the file restores', async () => {
    const folder = join(work, 'backups');
    const key = await create(task('backup', { actions: [{ type: 'backup', folder, keep: 2 }] }));
    for (let i = 0; i < 3; i++) expect((await runNow(key)).run!.result).toBe('ok');
    const files = readdirSync(folder).sort();
    expect(files).toHaveLength(2);
    for (const f of files) expect(f).toMatch(/^lucky-backup-\d{14}(-\d+)?\.json$/);
    const written = JSON.parse(readFileSync(join(folder, files[1]!), 'utf8')) as { format: string; modules: Record<string, { rules: Array<{ key: string }> }> };
    expect(written.format).toBe('lucky-backup');
    expect(written.modules.cron!.rules.map((r) => r.key)).toContain(key);
    // The same shape as the download (keys and their order), and the restore takes it.
    const download = (await d.runtime.app.inject({ method: 'GET', url: '/api/configure', headers: { 'lucky-admin-token': d.token } })).json() as Record<string, unknown>;
    expect(Object.keys(written)).toEqual(Object.keys(download));
    const boundary = '----cron' + Date.now();
    const payload = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="b.json"\r\nContent-Type: application/json\r\n\r\n`),
      readFileSync(join(folder, files[1]!)),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const staged = (await d.runtime.app.inject({ method: 'POST', url: '/api/configure', payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'lucky-admin-token': d.token } })).json() as { ret: number; key: string };
    expect(staged.ret).toBe(0);
    expect(await d.call('GET', `/api/restoreconfigureconfirm?key=${staged.key}`, undefined, EN)).toEqual({ ret: 0, msg: 'Configuration restored' });
    expect((await view(key)).name).toBe('backup');
    await d.call('DELETE', `/api/cron/rules/${key}`);
  });

  it('refuses bad tasks in the caller\'s language and saves nothing', async () => {
    const wol = await d.call<{ key: string }>('POST', '/api/wol/rules', { name: 'gone soon', macs: ['02:00:00:00:00:01'] });
    await d.call('DELETE', `/api/wol/rules/${wol.key}`);
    const before = (await d.call<{ list: unknown[] }>('GET', '/api/cron/rules')).list.length;
    const cases: Array<[CronTaskInput, RegExp]> = [
      [task('x', { schedule: { kind: 'cron', expr: '* * 25 * * *' } }), /^invalid cron expression: /],
      [task('x', { schedule: { kind: 'cron', expr: 'every day' } }), /^invalid cron expression: /],
      [task('x', { timezone: 'Mars/Olympus' }), /timezone.*unknown time zone/],
      [task('x', { actions: [{ type: 'wol', device: wol.key }] }), new RegExp(`^action 1: the chosen wake-on-LAN rule does not exist \\(${wol.key}\\)$`)],
      [task('x', { actions: [] }), /at least one action/],
      [task('x', { actions: [{ type: 'command', line: 'true', env: ['1BAD=x'] }] }), /NAME=value/],
      [task('x', { actions: [{ type: 'backup', folder: 'relative/dir' }] }), /absolute path/],
      [task('x', { start: Date.now(), end: Date.now() - 1000 }), /end must be after the start/],
      [task('x', { end: Date.now() - 1000 }), /never runs/],
    ];
    for (const [body, msg] of cases) {
      const r = await d.call('POST', '/api/cron/rules', body, EN);
      expect(r.ret, JSON.stringify(body)).toBe(1);
      expect(r.msg).toMatch(msg);
    }
    const zh = await d.call('POST', '/api/cron/rules', task('x', { timezone: 'Mars/Olympus' }));
    expect(zh.msg).toMatch(/未知的时区/);
    // A bad MAC is WOL's own refusal.
    expect(await d.call('POST', '/api/wol/rules', { name: 'bad', macs: ['02:00:00:00:00'] }, EN)).toMatchObject({ ret: 1, msg: expect.stringMatching(/MAC/i) });
    const ok = await create(task('unique'));
    expect(await d.call('POST', '/api/cron/rules', task('unique'), EN)).toMatchObject({ ret: 1, msg: 'the name is already taken' });
    expect((await d.call<{ list: unknown[] }>('GET', '/api/cron/rules')).list.length).toBe(before + 1);
    await d.call('DELETE', `/api/cron/rules/${ok}`);
  });
});

describe('cron across restarts', () => {
  it('keeps the history, and catches up once after downtime when the task asks', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lucky-cron-restart-'));
    try {
      let d = await startTestDaemon({ dataDir });
      const mk = async (name: string, catchUp: 'skip' | 'once') =>
        (await d.call<{ key: string }>('POST', '/api/cron/rules', task(name, { schedule: { kind: 'cron', expr: '@hourly' }, catchUp, actions: [{ type: 'command', line: 'echo ran' }] }))).key;
      const once = await mk('catch up', 'once');
      const skip = await mk('no catch up', 'skip');
      expect((await d.call('POST', `/api/cron/rules/${once}/run?wait=1`)).ret).toBe(0);
      await d.close();

      // Down for two hours: what the tables say when the daemon last saw the tasks.
      const db = openDb(dataDir);
      db.prepare('UPDATE cron_seen SET at = ?').run(Date.now() - 2 * 3_600_000);
      db.close();

      d = await startTestDaemon({ dataDir });
      const runsOf = async (key: string) => (await d.call<{ runs: CronRun[] }>('GET', `/api/cron/rules/${key}/runs`)).runs;
      const r = await waitFor('the catch-up run', async () => ((await runsOf(once)).length >= 2 ? runsOf(once) : undefined), 5000);
      expect(r.map((x) => x.trigger)).toEqual(['catchup', 'manual']);
      expect(r[1]!.actions[0]!.output).toBe('ran\n');
      await sleep(500);
      expect(await runsOf(skip)).toEqual([]);
      const logs = (await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/cron/rules/${once}/logs`, undefined, EN)).logs.map((l) => l.log);
      expect(logs.some((l) => l.endsWith('runs were missed while the daemon was down: running once now'))).toBe(true);

      // A plain restart (nothing missed) runs nothing more.
      await d.close();
      d = await startTestDaemon({ dataDir });
      await sleep(500);
      expect(await runsOf(once)).toHaveLength(2);
      await d.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('bounds the history by rows per task', async () => {
    const d = await startTestDaemon();
    try {
      expect((await d.call('PUT', '/api/cron/configure', { historyRows: 3 })).ret).toBe(0);
      const { key } = await d.call<{ key: string }>('POST', '/api/cron/rules', task('many'));
      for (let i = 0; i < 5; i++) await d.call('POST', `/api/cron/rules/${key}/run?wait=1`);
      const r = await d.call<{ runs: CronRun[] }>('GET', `/api/cron/rules/${key}/runs`);
      expect(r.runs).toHaveLength(3);
      // And by bytes: runs of 3000 bytes of output each, 4096 bytes kept → only the newest.
      expect((await d.call('PUT', '/api/cron/configure', { historyRows: 100, historyBytes: 4096 })).ret).toBe(0);
      const big = await d.call<{ key: string }>('POST', '/api/cron/rules', task('big', { actions: [{ type: 'command', line: 'head -c 3000 /dev/zero | tr "\\0" y' }] }));
      for (let i = 0; i < 4; i++) await d.call('POST', `/api/cron/rules/${big.key}/run?wait=1`);
      const kept = (await d.call<{ runs: CronRun[] }>('GET', `/api/cron/rules/${big.key}/runs`)).runs;
      expect(kept).toHaveLength(1);
      expect(kept[0]!.actions[0]!.output).toHaveLength(3000);
      // Deleting the task drops its history.
      await d.call('DELETE', `/api/cron/rules/${key}`);
      const db = d.runtime.db;
      expect(db.prepare('SELECT COUNT(*) AS n FROM cron_runs WHERE task = ?').get(key)).toEqual({ n: 0 });
    } finally {
      await d.close();
    }
  });
});
