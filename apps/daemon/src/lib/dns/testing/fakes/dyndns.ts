/**
 * The dyndns2 protocol as servers speak it (dyndns2 at any URL, No-IP): basic auth, a user agent,
 * `hostname` and `myip`; answers `good <ip>`, `nochg <ip>`, `badauth`, `nohost`, `badagent`.
 * Hurricane Electric: a POSTed form with the record's key as `password` and `myip` or `txt`; the
 * record must already exist (made dynamic at dns.he.net), else `nohost`.
 */
import { inZone, Reject, serve, upsert, type FakeCreds, type FakeProvider, type Req } from '../fakeserver.js';

function update(st: FakeProvider, host: string, type: string, value: string, mustExist: boolean) {
  const old = st.find(host, type);
  if (!inZone(host) || (mustExist && !old)) return { status: 200, body: 'nohost' };
  if (old?.value === value) return { status: 200, body: `nochg ${value}` };
  upsert(st, host, type, value, 60, old?.id);
  return { status: 200, body: `good ${value}` };
}

/** dyndns2 at `path` (the update URL is the stand-in's URL + path). */
export function fakeDyndns(c: FakeCreds, name = 'dyndns2', path = '/nic/update'): Promise<FakeProvider> {
  return serve(name, (r: Req, st) => {
    if (r.url.pathname !== path) return { status: 404, body: 'not found' };
    if (r.headers.authorization !== `Basic ${Buffer.from(`${c.id}:${c.secret}`).toString('base64')}`) throw new Reject(401, 'badauth', 'basic auth');
    if (!r.headers['user-agent']) return { status: 200, body: 'badagent' };
    const q = r.url.searchParams;
    const ip = q.get('myip') ?? '';
    return update(st, q.get('hostname') ?? '', ip.includes(':') ? 'AAAA' : 'A', ip, false);
  });
}

export const fakeNoip = (c: FakeCreds) => fakeDyndns(c, 'noip');

export function fakeHe(c: FakeCreds): Promise<FakeProvider> {
  return serve('he', (r, st) => {
    if (r.method !== 'POST' || r.url.pathname !== '/nic/update') return { status: 404, body: 'not found' };
    if (r.headers['content-type'] !== 'application/x-www-form-urlencoded') return { status: 400, body: 'bad request' };
    const q = new URLSearchParams(r.body);
    if (q.get('password') !== c.secret) throw new Reject(200, 'badauth', 'key');
    const host = q.get('hostname') ?? '';
    if (q.has('txt')) return update(st, host, 'TXT', q.get('txt')!, true);
    const ip = q.get('myip') ?? '';
    return update(st, host, ip.includes(':') ? 'AAAA' : 'A', ip, true);
  });
}
