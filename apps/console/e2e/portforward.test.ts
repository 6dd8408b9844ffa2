// @vitest-environment node
/**
 * Port forwarding screens in a real browser against the built daemon, with a TCP and a UDP echo
 * server on loopback as targets: validation (spec section 5, `70000`, mismatched counts, empty
 * target), a tcp+udp rule created through the form carrying data both ways, live figures growing in
 * the list, a listen port edited while a connection on another rule stays open, disable (refused)
 * and enable, the rule log, settings, English. Screenshots: portforward-*.png.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeConsole, Daemon, freePort, openConsole, requirePrerequisites, shooter, shotOnFailure, withModuleOff } from './harness';

const shot = shooter('portforward');

let daemon: Daemon;
let browser: Browser | undefined;
let context: BrowserContext | undefined;
let page: Page;
let apiToken = '';
let tcpEcho: Server | undefined;
let udpEcho: UdpSocket | undefined;
/** The TCP and the UDP echo servers share this port number. */
let echoPort = 0;
let listenPort = 0;
let editedPort = 0;
let otherPort = 0;
const sockets = new Set<Socket>();
const pageErrors: string[] = [];

async function startEchoServers(): Promise<void> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const tcp = createServer((s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
      s.pipe(s);
    });
    const port = await new Promise<number>((res, rej) => {
      tcp.once('error', rej);
      tcp.listen(0, '127.0.0.1', () => res((tcp.address() as { port: number }).port));
    });
    const udp = createSocket('udp4');
    const ok = await new Promise<boolean>((res) => {
      udp.once('error', () => res(false));
      udp.bind(port, '127.0.0.1', () => res(true));
    });
    if (ok) {
      udp.on('message', (msg, rinfo) => udp.send(msg, rinfo.port, rinfo.address));
      tcpEcho = tcp;
      udpEcho = udp;
      echoPort = port;
      return;
    }
    udp.close();
    await new Promise<void>((r) => tcp.close(() => r()));
  }
  throw new Error('no port free for both TCP and UDP');
}

/** Opens a TCP connection to a loopback port (rejects with the socket error, e.g. ECONNREFUSED). */
function open(port: number, timeoutMs = 5000): Promise<Socket> {
  return new Promise((res, rej) => {
    const s = connect({ host: '127.0.0.1', port });
    const timer = setTimeout(() => {
      s.destroy();
      rej(new Error(`connect to ${port} timed out`));
    }, timeoutMs);
    s.once('connect', () => {
      clearTimeout(timer);
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      res(s);
    });
    s.once('error', (e) => {
      clearTimeout(timer);
      rej(e);
    });
  });
}

/** Writes `text` and waits for the same bytes back. */
function echo(s: Socket, text: string, timeoutMs = 5000): Promise<string> {
  return new Promise((res, rej) => {
    let got = '';
    const timer = setTimeout(() => {
      s.off('data', onData);
      rej(new Error(`echo timed out, got ${JSON.stringify(got)}`));
    }, timeoutMs);
    const onData = (b: Buffer) => {
      got += b.toString();
      if (got.length >= text.length) {
        clearTimeout(timer);
        s.off('data', onData);
        res(got);
      }
    };
    s.on('data', onData);
    s.write(text);
  });
}

async function tcpRoundTrip(port: number, text: string): Promise<string> {
  const s = await open(port);
  try {
    return await echo(s, text);
  } finally {
    s.destroy();
  }
}

async function tcpError(port: number): Promise<string> {
  try {
    const s = await open(port, 3000);
    s.destroy();
    return 'connected';
  } catch (e) {
    return (e as NodeJS.ErrnoException).code ?? String(e);
  }
}

function udpRoundTrip(port: number, text: string, timeoutMs = 3000): Promise<string> {
  return new Promise((res, rej) => {
    const s = createSocket('udp4');
    const timer = setTimeout(() => {
      s.close();
      rej(new Error('udp echo timed out'));
    }, timeoutMs);
    s.on('message', (m) => {
      clearTimeout(timer);
      s.close();
      res(m.toString());
    });
    s.on('error', (e) => {
      clearTimeout(timer);
      s.close();
      rej(e);
    });
    s.send(text, port, '127.0.0.1');
  });
}

async function rules(): Promise<Array<Record<string, unknown>>> {
  const r = await daemon.api('GET', '/api/portforward/rules', undefined, apiToken);
  return r.list as Array<Record<string, unknown>>;
}

const row = (p: Page, name: string): Locator => p.locator(`[data-testid="pf-row"][data-name="${name}"]`);
const figure = async (r: Locator, id: string) => Number(await r.getByTestId(id).getAttribute('data-value'));
const errorItems = async (p: Page) => p.getByTestId('pf-form-error-item').allTextContents();

describe('port forwarding console e2e (chromium + built daemon + loopback echo servers)', () => {
  beforeAll(async () => {
    requirePrerequisites();
    await startEchoServers();
    [listenPort, editedPort, otherPort] = [await freePort(), await freePort(), await freePort()];
    ({ daemon, apiToken, browser, context, page } = await openConsole(1440, 1000, pageErrors));
  }, 90_000);

  afterEach(shotOnFailure('portforward', () => page, () => daemon));

  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await closeConsole({ daemon, browser, context });
    udpEcho?.close();
    await new Promise<void>((r) => (tcpEcho ? tcpEcho.close(() => r()) : r()));
  }, 30_000);

  it('shows the empty list', async () => {
    await page.goto(`${daemon.url}#/portforward`);
    await expect.poll(() => page.title()).toBe('Lucky | 端口转发');
    await page.getByTestId('pf-empty').waitFor();
    await shot(page, '01-empty');
  });

  it('refuses an incomplete form before sending, with the spec messages and live port feedback', async () => {
    let writes = 0;
    const count = (r: { method(): string; url(): string }) => {
      if (['PUT', 'POST'].includes(r.method()) && r.url().includes('/api/portforward/rules')) writes++;
    };
    page.on('request', count);
    await page.getByTestId('pf-add').click();
    await page.getByTestId('pf-name').fill('回环');
    // Both default types off: nothing chosen.
    await page.getByTestId('pf-type-tcp').uncheck();
    await page.getByTestId('pf-type-udp').uncheck();
    await page.getByTestId('pf-save').click();
    await expect.poll(() => errorItems(page)).toEqual(['至少选择一种转发类型', '监听端口不能为空', '目标地址不能为空', '目标端口不能为空']);
    await expect(page.getByTestId('pf-listen-ports').getAttribute('aria-invalid')).resolves.toBe('true');
    await shot(page, '02-required');

    await page.getByTestId('pf-type-tcp').check();
    await page.getByTestId('pf-type-udp').check();
    // 70000: the live feedback and the save both name it.
    await page.getByTestId('pf-listen-ports').fill('70000');
    await expect.poll(() => errorItems(page)).toContain('监听端口：端口必须在 1-65535 之间');
    await page.getByTestId('pf-targets').fill('127.0.0.1');
    await page.getByTestId('pf-target-ports').fill(String(echoPort));
    await expect.poll(() => errorItems(page)).toEqual(['监听端口：端口必须在 1-65535 之间']);

    // Mismatched counts: three listening ports, two target ports.
    await page.getByTestId('pf-listen-ports').fill(`${listenPort},${editedPort},${otherPort}`);
    await page.getByTestId('pf-target-ports').fill(`${echoPort},${echoPort + 1}`);
    await expect.poll(() => errorItems(page)).toEqual(['目标端口：目标端口数量必须与监听端口数量相同，或只填一个端口']);
    await shot(page, '03-mismatch');
    // Fixed: the live feedback tells the count.
    await page.getByTestId('pf-target-ports').fill(String(echoPort));
    await expect.poll(() => page.getByTestId('pf-target-ports-count').textContent()).toBe('✓ 1 个端口，用于全部 3 个监听端口');
    await expect.poll(() => page.getByTestId('pf-listen-ports-count').textContent()).toBe('✓ 共 3 个端口');
    // An empty target again.
    await page.getByTestId('pf-targets').fill('');
    await page.getByTestId('pf-save').click();
    await expect.poll(() => errorItems(page)).toEqual(['目标地址不能为空']);
    expect(writes).toBe(0);
    page.off('request', count);
  });

  it('creates a tcp+udp rule through the form; data goes through both ways and the figures grow', async () => {
    await page.getByTestId('pf-listen-host').fill('127.0.0.1');
    await page.getByTestId('pf-listen-ports').fill(String(listenPort));
    await page.getByTestId('pf-targets').fill('127.0.0.1');
    await page.getByTestId('pf-target-ports').fill(String(echoPort));
    await page.getByTestId('pf-note').fill('echo servers');
    await expect.poll(() => page.getByTestId('pf-form-error').count()).toBe(0);
    await page.getByTestId('pf-tab-limits').click();
    await page.getByTestId('pf-limit-tcpMaxConnections').waitFor();
    await shot(page, '04-limits');
    await page.getByTestId('pf-tab-filter').click();
    await page.getByTestId('pf-filter-mode').getByText('白名单').click();
    await page.getByTestId('pf-filter-list').fill('127.0.0.0/8');
    await shot(page, '04b-filter');
    await page.getByTestId('pf-tab-tls').click();
    await page.getByTestId('pf-tls-target').dispatchEvent('click');
    await page.getByTestId('pf-tls-servername').waitFor();
    await page.getByTestId('pf-tls-listen').dispatchEvent('click');
    await page.getByTestId('pf-tls-cert').waitFor();
    // A PEM file is read into the field.
    const chooser = page.waitForEvent('filechooser');
    await page.getByTestId('pf-tls-cert-upload').click();
    const pem = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';
    await (await chooser).setFiles({ name: 'site.pem', mimeType: 'text/plain', buffer: Buffer.from(pem) });
    await expect.poll(() => page.getByTestId('pf-tls-cert').inputValue()).toBe(pem);
    await shot(page, '04c-tls');
    await page.getByTestId('pf-tls-listen').dispatchEvent('click');
    await page.getByTestId('pf-tls-target').dispatchEvent('click');
    await expect.poll(() => page.getByTestId('pf-tls-cert').count()).toBe(0);
    await page.getByTestId('pf-tab-basic').click();
    await shot(page, '05-form');
    await page.getByTestId('pf-save').click();
    await expect.poll(() => page.getByTestId('pf-name').count()).toBe(0);
    const r = row(page, '回环');
    await r.waitFor();
    await expect.poll(() => r.getByTestId('pf-status').getAttribute('data-state'), { timeout: 10_000 }).toBe('running');
    await expect.poll(() => r.getByTestId('pf-listeners').textContent()).toBe('监听 2/2');

    const text = 'hello through the forwarder '.repeat(40);
    expect(await tcpRoundTrip(listenPort, text)).toBe(text);
    expect(await udpRoundTrip(listenPort, 'udp ping')).toBe('udp ping');
    // A connection held open shows up as current.
    const held = await open(listenPort);
    expect(await echo(held, 'x')).toBe('x');
    await expect.poll(() => figure(r, 'pf-fig-tcp'), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => figure(r, 'pf-fig-udp'), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => figure(r, 'pf-fig-in'), { timeout: 10_000 }).toBeGreaterThanOrEqual(text.length + 'udp ping'.length + 1);
    await expect.poll(() => figure(r, 'pf-fig-out'), { timeout: 10_000 }).toBeGreaterThanOrEqual(text.length + 'udp ping'.length + 1);
    expect(await figure(r, 'pf-fig-total')).toBeGreaterThanOrEqual(2);
    // 1000-based, 3 significant digits.
    await expect(r.getByTestId('pf-fig-in').textContent()).resolves.toMatch(/入 1\.\d\d KB/);
    await shot(page, '06-list-figures');
    held.destroy();
    await expect.poll(() => figure(r, 'pf-fig-tcp'), { timeout: 10_000 }).toBe(0);
    const [saved] = await rules();
    expect(saved).toMatchObject({
      name: '回环',
      types: ['tcp', 'udp'],
      listenHost: '127.0.0.1',
      listenPorts: String(listenPort),
      targets: ['127.0.0.1'],
      note: 'echo servers',
      filter: { mode: 'whitelist', list: ['127.0.0.0/8'] },
      tls: { listen: false, target: false },
    });
  });

  it('editing the listen port leaves a connection on another rule open', async () => {
    expect(
      (await daemon.api('POST', '/api/portforward/rules', { name: '其他', types: ['tcp'], listenHost: '127.0.0.1', listenPorts: String(otherPort), targets: ['127.0.0.1'], targetPorts: String(echoPort) }, apiToken)).ret,
    ).toBe(0);
    const other = row(page, '其他');
    await expect.poll(() => other.getByTestId('pf-status').getAttribute('data-state'), { timeout: 10_000 }).toBe('running');
    const held = await open(otherPort);
    expect(await echo(held, 'before')).toBe('before');

    await row(page, '回环').getByTestId('pf-edit').click();
    await expect(page.getByTestId('pf-listen-ports').inputValue()).resolves.toBe(String(listenPort));
    await page.getByTestId('pf-listen-ports').fill(String(editedPort));
    await page.getByTestId('pf-save').click();
    await expect.poll(() => page.getByTestId('pf-name').count()).toBe(0);
    await expect.poll(() => row(page, '回环').getByTestId('pf-row-listen').textContent()).toBe(`127.0.0.1:${editedPort}`);
    await expect.poll(() => tcpError(listenPort), { timeout: 10_000 }).toBe('ECONNREFUSED');
    expect(await tcpRoundTrip(editedPort, 'after edit')).toBe('after edit');
    // The other rule's connection was never touched.
    expect(held.destroyed).toBe(false);
    expect(await echo(held, 'still here')).toBe('still here');
    held.destroy();
  });

  it('a per-rule limit set in the form refuses the next connection and the list counts it', async () => {
    await row(page, '其他').getByTestId('pf-edit').click();
    await page.getByTestId('pf-tab-limits').click();
    await page.getByTestId('pf-limit-tcpMaxConnections').fill('1');
    await page.getByTestId('pf-save').click();
    await expect.poll(() => page.getByTestId('pf-name').count()).toBe(0);
    await expect.poll(async () => ((await rules()).find((r) => r.name === '其他')?.limits as Record<string, unknown>)?.tcpMaxConnections).toBe(1);
    const first = await open(otherPort);
    expect(await echo(first, 'one')).toBe('one');
    // The second one is closed at once without reaching the target.
    const second = await open(otherPort);
    await new Promise<void>((res, rej) => {
      const timer = setTimeout(() => rej(new Error('the second connection stayed open')), 5000);
      second.once('close', () => {
        clearTimeout(timer);
        res();
      });
    });
    const r = row(page, '其他');
    await expect.poll(() => r.getByTestId('pf-fig-refused').textContent(), { timeout: 10_000 }).toBe('拒绝：限制 1 · 过滤 0');
    await shot(page, '06b-refused');
    first.destroy();
  });

  it('the switch stops the rule (connection refused) and starts it again', async () => {
    const r = row(page, '回环');
    // The switch's input is visually hidden under its track: click it directly.
    await r.getByTestId('pf-toggle').dispatchEvent('click');
    await expect.poll(() => r.getByTestId('pf-status').getAttribute('data-state'), { timeout: 10_000 }).toBe('disabled');
    await expect.poll(() => tcpError(editedPort), { timeout: 10_000 }).toBe('ECONNREFUSED');
    await shot(page, '07-disabled');
    await r.getByTestId('pf-toggle').dispatchEvent('click');
    await expect.poll(() => r.getByTestId('pf-status').getAttribute('data-state'), { timeout: 10_000 }).toBe('running');
    expect(await tcpRoundTrip(editedPort, 'back again')).toBe('back again');
    expect(await udpRoundTrip(editedPort, 'udp again')).toBe('udp again');
  });

  it('a port in use shows as the rule status with the engine message', async () => {
    // The echo server's own port is taken: the rule cannot listen there.
    expect(
      (await daemon.api('POST', '/api/portforward/rules', { name: '占用', types: ['tcp'], listenHost: '127.0.0.1', listenPorts: String(echoPort), targets: ['127.0.0.1'], targetPorts: '9' }, apiToken)).ret,
    ).toBe(0);
    const r = row(page, '占用');
    await expect.poll(() => r.getByTestId('pf-status').getAttribute('data-state'), { timeout: 10_000 }).toBe('error');
    // The engine's status comes in the console's language.
    await expect.poll(() => r.getByTestId('pf-status-message').textContent()).toMatch(new RegExp(`端口 ${echoPort} 已被占用`));
    await shot(page, '08-port-in-use');
    await r.getByTestId('pf-delete').click();
    await page.getByTestId('pf-delete-confirm').click();
    await expect.poll(() => row(page, '占用').count()).toBe(0);
  });

  it('the rule log shows connections', async () => {
    await row(page, '回环').getByTestId('pf-log-open').click();
    await expect.poll(() => page.getByTestId('pf-log-text').textContent(), { timeout: 10_000 }).toMatch(/127\.0\.0\.1/);
    const before = (await page.getByTestId('pf-log-text').textContent())!.split('\n').length;
    // New lines arrive through `pre` polling.
    expect(await tcpRoundTrip(editedPort, 'log me')).toBe('log me');
    await expect.poll(async () => (await page.getByTestId('pf-log-text').textContent())!.split('\n').length, { timeout: 10_000 }).toBeGreaterThan(before);
    await shot(page, '09-log');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('pf-log-text').count()).toBe(0);
  });

  it('settings: bounds checked, the whole object saved', async () => {
    const before = (await daemon.api('GET', '/api/portforward/configure', undefined, apiToken)).configure as Record<string, unknown>;
    await page.getByTestId('pf-settings-open').click();
    await page.getByTestId('pf-set-connectTimeout').waitFor();
    await page.getByTestId('pf-set-connectTimeout').fill('500');
    await page.getByTestId('pf-settings-save').click();
    await expect.poll(() => page.getByTestId('pf-settings-error').textContent()).toContain('连接目标超时（秒）');
    await page.getByTestId('pf-set-connectTimeout').fill('7');
    await page.getByTestId('pf-set-udpSessionTimeout').fill('30');
    await shot(page, '10-settings');
    await page.getByTestId('pf-settings-save').click();
    await expect.poll(() => page.getByTestId('pf-set-connectTimeout').count()).toBe(0);
    const after = (await daemon.api('GET', '/api/portforward/configure', undefined, apiToken)).configure;
    expect(after).toEqual({ ...before, connectTimeout: 7, udpSessionTimeout: 30 });
    // A rule's blank limit shows the new default.
    await row(page, '回环').getByTestId('pf-edit').click();
    await page.getByTestId('pf-tab-limits').click();
    await expect(page.getByTestId('pf-limit-udpSessionTimeout').getAttribute('placeholder')).resolves.toBe('默认 30');
    await page.getByRole('button', { name: '取消' }).click();
    await expect.poll(() => page.getByTestId('pf-name').count()).toBe(0);
  });

  it('in English after a language switch', async () => {
    await page.getByTestId('lang-switch').selectOption('en_US');
    await expect.poll(() => page.title(), { timeout: 15_000 }).toBe('Lucky | Port forwarding');
    await expect.poll(() => row(page, '回环').getByTestId('pf-status').textContent()).toBe('Running');
    await expect(page.getByTestId('pf-add').textContent()).resolves.toBe('Add rule');
    await shot(page, '11-list-english');
    await page.getByTestId('pf-add').click();
    await page.getByTestId('pf-name').fill('x');
    await page.getByTestId('pf-listen-ports').fill('10-5');
    await page.getByTestId('pf-save').click();
    await expect.poll(() => errorItems(page)).toEqual([
      'Listening ports: a port range must not start above its end',
      'Target addresses cannot be empty',
      'Target ports cannot be empty',
    ]);
    await shot(page, '12-form-english');
    // At 768 px or narrower the form takes the whole window.
    await page.setViewportSize({ width: 700, height: 900 });
    await page.getByTestId('pf-name').scrollIntoViewIfNeeded();
    await shot(page, '13-form-narrow');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await shot(page, '14-list-narrow');
    await page.setViewportSize({ width: 1440, height: 1000 });
    await page.getByTestId('lang-switch').selectOption('zh_CN');
    await expect.poll(() => page.title(), { timeout: 15_000 }).toBe('Lucky | 端口转发');
  });

  it('a disabled module shows the module-disabled message', async () => {
    await withModuleOff(daemon, apiToken, 'portforward', async () => {
      await page.reload();
      await page.getByTestId('module-disabled').waitFor();
      await expect(page.getByTestId('pf-add').isDisabled()).resolves.toBe(true);
      expect(await page.getByTestId('pf-table').count()).toBe(0);
    });
    await page.reload();
    await row(page, '回环').waitFor();
    await expect.poll(() => row(page, '回环').getByTestId('pf-status').getAttribute('data-state'), { timeout: 10_000 }).toBe('running');
  });

  it('deletes the rules', async () => {
    for (const name of ['其他', '回环']) {
      await row(page, name).getByTestId('pf-delete').click();
      await page.getByTestId('pf-delete-confirm').click();
      await expect.poll(() => row(page, name).count()).toBe(0);
    }
    await page.getByTestId('pf-empty').waitFor();
    expect(await rules()).toEqual([]);
    expect(await tcpError(editedPort)).toBe('ECONNREFUSED');
  });

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
