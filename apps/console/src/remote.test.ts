import { describe, expect, it } from 'vitest';
import { probeRemoteInfo, SECONDARY_DELAY_MS } from './remote';

const ok = (body: unknown, delay = 0) => () =>
  new Promise<Response>((r) => setTimeout(() => r(new Response(JSON.stringify(body), { status: 200 })), delay));
const fail = () => Promise.reject(new TypeError('Failed to fetch'));
const info = (github: string, staticHost = '') => ({ ret: 0, lastVersion: { github, qqGroup: github + 'q' }, staticHost, appinfourl: '', V2L: null });

function fakeFetch(routes: Record<string, () => Promise<Response>>) {
  const asked: string[] = [];
  const f = (async (input: RequestInfo | URL) => {
    const url = String(input);
    asked.push(url);
    const host = Object.keys(routes).find((h) => url.startsWith(h + '/app/v2?_='));
    return host ? routes[host]!() : fail();
  }) as typeof fetch;
  return { f, asked };
}

describe('remote info probe', () => {
  it('the primary wins when it answers in time (others start 300 ms later)', async () => {
    expect(SECONDARY_DELAY_MS).toBe(300);
    const { f, asked } = fakeFetch({ 'https://a': ok(info('2.0', 'https://static.a'), 50), 'https://b': ok(info('1.0')) });
    const s = await probeRemoteInfo(['https://a', 'https://b'], { fetch: f, now: () => 7 });
    expect(s).toMatchObject({ githubVersion: '2.0', qqGroupVersion: '2.0q', staticHost: 'https://static.a', showAboutView: true, showLocalView: false });
    expect(asked[0]).toBe('https://a/app/v2?_=7');
  });

  it('the fastest valid answer wins; invalid ones are ignored', async () => {
    const { f } = fakeFetch({ 'https://a': ok({ ret: 1 }), 'https://b': ok(info('1.5'), 10), 'https://c:8443': ok(info('9.9'), 2000) });
    const s = await probeRemoteInfo(['https://a', 'https://b', 'https://c:8443'], { fetch: f, delayMs: 5 });
    expect(s.githubVersion).toBe('1.5');
    expect(s.staticHost).toBe('https://b');
  });

  it('falls back quietly: local view, unknow versions, the primary as staticHost', async () => {
    const { f } = fakeFetch({ 'https://b': ok({ ret: 0 }) });
    const s = await probeRemoteInfo(['https://a', 'https://b'], { fetch: f, delayMs: 1 });
    expect(s).toMatchObject({ githubVersion: 'unknow', qqGroupVersion: 'unknow', staticHost: 'https://a', showAboutView: false, showLocalView: true });
  });

  it('gives up at its own timeout when hosts hang', async () => {
    const hang = (() => new Promise<Response>(() => undefined)) as unknown as typeof fetch;
    const s = await probeRemoteInfo(['https://a'], { fetch: hang, timeoutMs: 50 });
    expect(s.showLocalView).toBe(true);
  });
});
