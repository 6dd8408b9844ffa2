/**
 * The client against a real HTTP server on loopback: headers, the throwaway parameter, ret -1,
 * the failure counter (network errors, timeouts, non-2xx) and its reset on success.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { coreRoutes, wolRoutes, type Lang } from '@lucky/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, createClient, FAILURE_THRESHOLD, REQUEST_TIMEOUT_MS, type ClientDeps } from './client';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;
let handler: Handler;
let server: Server;
let base = '';
const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];

const json = (res: ServerResponse, status: number, value: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
};

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/prefix/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});
beforeEach(() => {
  seen.length = 0;
  handler = (_req, res) => json(res, 200, { ret: 0, version: '1.2.3', twoFAEnable: false });
});

function setup(over: Partial<ClientDeps> = {}) {
  const events = { lost: [] as string[], errors: [] as string[], logged: 0 };
  let token: string | undefined = 'tok-123';
  let lang: Lang = 'en_US';
  const client = createClient({
    baseUrl: () => base,
    token: () => token,
    lang: () => lang,
    onSessionLost: (r) => events.lost.push(r),
    onBackendError: (m) => events.errors.push(m),
    log: () => events.logged++,
    now: () => 1_700_000_000_123,
    ...over,
  });
  return { client, events, setToken: (t?: string) => (token = t), setLang: (l: Lang) => (lang = l) };
}

describe('api client', () => {
  it('uses the spec constants', () => {
    expect(REQUEST_TIMEOUT_MS).toBe(5000);
    expect(FAILURE_THRESHOLD).toBe(2);
  });

  it('calls relative to ./ with token, language, JSON and a time-derived _ parameter', async () => {
    const { client } = setup();
    const r = await client.call(coreRoutes.version, {});
    expect(r.version).toBe('1.2.3');
    const req = seen[0]!;
    expect(req.method).toBe('GET');
    expect(req.url).toBe('/prefix/version?_=1700000000123');
    expect(req.headers['lucky-admin-token']).toBe('tok-123');
    expect(req.headers['lucky-lang']).toBe('en_US');
    expect(req.headers.cookie).toBeUndefined();
  });

  it('fills params, query and a JSON body; no token header without a token', async () => {
    const { client, setToken } = setup();
    setToken(undefined);
    handler = (_q, res) => json(res, 200, { ret: 0 });
    await client.call(wolRoutes.enable, { params: { key: 'k1' }, body: { enable: true } });
    await client.call(coreRoutes.logs, { query: { pre: 42 } });
    expect(seen[0]!.method).toBe('PUT');
    expect(seen[0]!.url).toBe('/prefix/api/wol/rules/k1/enable?_=1700000000123');
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen[0]!.body)).toEqual({ enable: true });
    expect(seen[0]!.headers['lucky-admin-token']).toBeUndefined();
    expect(seen[1]!.url).toBe('/prefix/api/logs?pre=42&_=1700000000123');
  });

  it('ret -1 goes to /login at once', async () => {
    const { client, events } = setup();
    handler = (_q, res) => json(res, 200, { ret: -1, msg: 'session invalid' });
    await expect(client.call(coreRoutes.status, {})).rejects.toMatchObject({ kind: 'session', ret: -1 });
    expect(events.lost).toEqual(['session']);
    expect(events.errors).toEqual([]);
  });

  it('shows backend messages unless the call is silent', async () => {
    const { client, events } = setup();
    handler = (_q, res) => json(res, 200, { ret: 6, msg: 'port 80 is in use' });
    await expect(client.call(coreRoutes.status, {})).rejects.toBeInstanceOf(ApiError);
    await expect(client.call(coreRoutes.modulesList, {}, { silent: true })).rejects.toMatchObject({ kind: 'backend', ret: 6 });
    expect(events.errors).toEqual(['port 80 is in use']);
    expect(events.lost).toEqual([]);
    expect(client.failures).toBe(0); // an answered request is not a transport failure
  });

  it('the 3rd consecutive transport failure goes to /login; a success resets the count', async () => {
    const { client, events } = setup();
    handler = (_q, res) => json(res, 500, { oops: true });
    await expect(client.call(coreRoutes.status, {})).rejects.toMatchObject({ kind: 'transport', status: 500 });
    await expect(client.call(coreRoutes.status, {})).rejects.toMatchObject({ kind: 'transport' });
    expect(client.failures).toBe(2);
    expect(events.lost).toEqual([]);
    handler = (_q, res) => json(res, 200, { ret: 0, version: 'x', twoFAEnable: false });
    await client.call(coreRoutes.version, {});
    expect(client.failures).toBe(0);
    handler = (_q, res) => {
      res.writeHead(404);
      res.end('no');
    };
    await expect(client.call(coreRoutes.status, {})).rejects.toBeInstanceOf(ApiError);
    await expect(client.call(coreRoutes.status, {})).rejects.toBeInstanceOf(ApiError);
    expect(events.lost).toEqual([]);
    await expect(client.call(coreRoutes.status, {})).rejects.toBeInstanceOf(ApiError);
    expect(events.lost).toEqual(['transport']);
    expect(client.failures).toBe(0);
    expect(events.logged).toBe(5);
  });

  it('counts network errors (nothing listening)', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const { client, events } = setup({ baseUrl: () => `http://127.0.0.1:${port}/` });
    for (let i = 0; i < 3; i++) await expect(client.call(coreRoutes.status, {}, { silent: true })).rejects.toMatchObject({ kind: 'transport' });
    expect(events.lost).toEqual(['transport']);
    expect(events.logged).toBe(0); // silent calls are not logged
  });

  it('times out and counts it as a failure', async () => {
    const { client, events } = setup({ timeoutMs: 150 });
    handler = () => undefined; // never answers
    const err = await client.call(coreRoutes.status, {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).message).toMatch(/timeout after 150 ms/);
    expect(client.failures).toBe(1);
    expect(events.lost).toEqual([]);
  });

  it('a caller canceling is not counted', async () => {
    const { client } = setup();
    handler = () => undefined;
    const ctl = new AbortController();
    const p = client.call(coreRoutes.status, {}, { signal: ctl.signal });
    setTimeout(() => ctl.abort(), 20);
    await expect(p).rejects.toBeInstanceOf(ApiError);
    expect(client.failures).toBe(0);
  });
});
