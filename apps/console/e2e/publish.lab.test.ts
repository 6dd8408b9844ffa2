// @vitest-environment node
/**
 * Publish in a real browser against the built daemon, in the NAT lab (apps/daemon/src/test/
 * publishlab.ts): the test's namespace is the LAN host (the daemon, its web rule, a node:http
 * backend), a router namespace masquerades it and runs miniupnpd, the WAN namespace holds BIND
 * (lab.test, RFC 2136) and pebble (HTTP-01 through the router's forward of port 80). A service
 * published from the form with the router mapping on turns its five lights green, the router's
 * included; a visitor on the WAN side (curl there) gets the backend over HTTPS verified against
 * pebble's root; deleting it in the browser takes its forwards off the router. The loopback
 * version, without the router, is publish.test.ts. Needs root and namespaces, like the daemon's lab
 * tests; never skipped. Screenshots: publish-lab-*.png.
 */
import { createServer, type Server } from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPublishLab, labSetup, type PublishLab } from '../../daemon/src/test/publishlab';
import { closeConsole, Daemon, freePort, openConsole, requirePrerequisites, shooter, shotOnFailure } from './harness';
import { fillPublishForm } from './publishform';

const shot = shooter('publish-lab');

/**
 * npm test runs every file on two Nodes side by side, so this file's two runs (and the daemon's
 * publish.lab.test.ts, tag 'pubsvc') may build labs at the same moment. natlab names namespaces and
 * veths after `${tag}${pid % 10000}` cut to 9 characters: a 4-character tag keeps the whole pid,
 * and the Node's major version in it keeps the two runs apart whatever their pids.
 */
const LAB_TAG = `pe${process.versions.node.split('.')[0]}`;
const NAME = 'ha.lab.test';
const TEMPLATE = 'lab zone';

let lab: PublishLab | undefined;
let caRoot = '';
let daemon: Daemon;
let browser: Browser | undefined;
let context: BrowserContext | undefined;
let page: Page;
let apiToken = '';
const pageErrors: string[] = [];
let backend: Server | undefined;
let backendPort = 0;
let httpsPort = 0;
let httpPort = 0;

const card = () => page.locator('[data-testid="publish-card"][data-name="Home Assistant"]');
const lights = (color: string) => card().locator(`[data-testid="publish-light"][data-color="${color}"]`).count();
const checkMessage = (id: string) => card().locator(`[data-testid="publish-check"][data-check="${id}"]`).getByTestId('publish-check-message').textContent();

async function api(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const r = await daemon.api(method, path, body, apiToken);
  expect(r.ret, String(r.msg)).toBe(0);
  return r;
}

/** What the card and the router said, for a failure's message. */
async function whatWasSeen(): Promise<string> {
  const checks = await card()
    .getByTestId('publish-check')
    .evaluateAll((els) => els.map((e) => `${e.getAttribute('data-check')} ${e.getAttribute('data-state')}: ${(e.textContent ?? '').replace(/\s+/g, ' ')}`))
    .catch((err: Error) => [`(card not read: ${err.message})`]);
  return `card:\n  ${checks.join('\n  ')}\nminiupnpd: ${lab?.miniupnpdLog().slice(-1500)}`;
}

describe('Publish console e2e in the NAT lab (chromium + built daemon + router with miniupnpd + BIND and pebble on the WAN)', () => {
  beforeAll(async () => {
    requirePrerequisites();
    lab = await createPublishLab(LAB_TAG);
    caRoot = await lab.pebble.root();
    backend = createServer((req, res) => res.end(`home assistant here, ${req.headers.host}\n`));
    backendPort = await freePort();
    await new Promise<void>((r) => backend!.listen(backendPort, '127.0.0.1', r));
    httpsPort = await freePort();
    httpPort = await freePort();
    ({ daemon, apiToken, browser, context, page } = await openConsole(1440, 1000, pageErrors));
    // As the daemon's lab test: pebble's automatic certificates, checks every 5 s, the user's task for the zone.
    const setup = labSetup(lab, TEMPLATE);
    await api('PUT', '/api/acme/configure', setup.acme);
    await api('PUT', '/api/publish/configure', setup.publish);
    await api('POST', '/api/ddns/rules', setup.template);
  }, 90_000);

  afterEach(shotOnFailure('publish-lab', () => page, () => daemon));

  afterAll(async () => {
    await closeConsole({ daemon, browser, context });
    await new Promise<void>((r) => (backend ? backend.close(() => r()) : r()));
    await lab?.remove();
  }, 60_000);

  it('publishes from the form with the router mapping on: five green lights, the router forwarding, the WAN side served', async () => {
    // The router is asked (the default), at its UPnP address.
    await fillPublishForm(page, { target: `http://127.0.0.1:${backendPort}`, name: NAME, task: `${TEMPLATE} (rfc2136)`, mapRouter: true, httpsPort, httpPort, upnpUrl: lab!.upnpUrl });
    await shot(page, 'form');
    await page.getByTestId('publish-save').click();

    await card().waitFor();
    await expect
      .poll(() => lights('green'), { timeout: 40_000 })
      .toBe(5)
      .catch(async (err: Error) => {
        throw new Error(`${err.message}\n${await whatWasSeen()}`);
      });
    const wanAddr = lab!.routerWanAddr();
    await expect(card().getByTestId('publish-url').textContent()).resolves.toBe(`https://${NAME}/`);
    await expect(card().getByTestId('publish-status').getAttribute('data-state')).resolves.toBe('running');
    const checks = card().getByTestId('publish-check');
    await expect(checks.evaluateAll((els) => els.map((e) => e.getAttribute('data-check')))).resolves.toEqual(['dns', 'certificate', 'web', 'target', 'router']);
    await expect(checkMessage('router')).resolves.toBe(`the router forwards public 443, 80 to this device by UPnP (public address ${wanAddr})`);
    await expect(checkMessage('dns')).resolves.toBe(`${NAME} resolve to ${wanAddr} at the authoritative servers ${lab!.bind.host}`);
    expect(await card().getByTestId('publish-check-hint').count()).toBe(0);
    await card().scrollIntoViewIfNeeded();
    await shot(page, 'green');

    // The visitor from outside: the name at BIND, through the router's forward, pebble's certificate.
    expect(await lab!.wanClient.resolve(NAME)).toEqual([wanAddr]);
    const r = await lab!.wanClient.https(`https://${NAME}/`, { caPem: caRoot });
    expect(r.status).toBe(200);
    expect(r.body).toBe(`home assistant here, ${NAME}\n`);
    expect(await lab!.upnpList()).toContain('Lucky publish');
  }, 90_000);

  it('deleting the service in the browser takes its forwards off the router and its parts with it', async () => {
    await card().getByTestId('publish-delete').click();
    await page.getByTestId('publish-delete-confirm').click();
    await page.getByTestId('publish-empty').waitFor();
    await expect.poll(async () => (await lab!.upnpList()).includes('Lucky publish'), { timeout: 15_000 }).toBe(false);
    await expect.poll(async () => ((await api('GET', '/api/web/rules')).list as unknown[]).length).toBe(0);
    const tasks = (await api('GET', '/api/ddns/rules')).list as Array<{ name: string }>;
    expect(tasks.map((t) => t.name)).toEqual([TEMPLATE]);
  }, 30_000);

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
