/**
 * OVHcloud API 1.0: application key, consumer key, timestamp and the `$1$` SHA-1 signature of
 * secret+consumer+method+URL+body+timestamp checked on every call; zone records by id; errors as
 * OVH answers them (`errorCode`, `httpCode`, `message`).
 */
import { createHash } from 'node:crypto';
import { bodyOf, drop, FAKE_ZONE, fullOf, inZone, quoted, Reject, relativeOf, serve, upsert, type FakeCreds, type FakeProvider, type FakeRecord } from '../fakeserver.js';

export function fakeOvh(c: FakeCreds): Promise<FakeProvider> {
  const ovhError = (status: number, errorCode: string, message: string) => ({ status, body: { errorCode, httpCode: `${status} ${status === 404 ? 'Not Found' : status === 403 ? 'Forbidden' : 'Bad Request'}`, message } });
  return serve('ovh', (r, s) => {
    const h = (n: string) => String(r.headers[n] ?? '');
    if (h('x-ovh-application') !== c.id) throw new Reject(403, ovhError(403, 'INVALID_KEY', 'This application key is invalid').body, 'application key');
    if (h('x-ovh-consumer') !== c.secret2) throw new Reject(403, ovhError(403, 'INVALID_CREDENTIAL', 'This credential is not valid').body, 'consumer key');
    const ts = Number(h('x-ovh-timestamp'));
    if (!Number.isFinite(ts) || Math.abs(Date.now() / 1000 - ts) > 180) throw new Reject(400, ovhError(400, 'QUERY_TIME_OUT', 'Query out of time').body, 'timestamp');
    const url = `${s.url}${r.url.pathname}${r.url.search}`;
    const expect = `$1$${createHash('sha1').update([c.secret, c.secret2, r.method, url, r.body, h('x-ovh-timestamp')].join('+')).digest('hex')}`;
    if (h('x-ovh-signature') !== expect) throw new Reject(400, ovhError(400, 'INVALID_SIGNATURE', 'Invalid signature').body, 'signature');
    const m = /^\/domain\/zone\/([^/]+)(?:\/(record|refresh)(?:\/(\d+))?)?$/.exec(r.url.pathname);
    const notFoundZone = { status: 404, body: { class: 'Client::NotFound', message: 'This service does not exist' } };
    if (!m || m[1] !== FAKE_ZONE) return notFoundZone;
    if (!m[2]) return { status: 200, body: { name: FAKE_ZONE, hasDnsAnycast: false, dnssecSupported: true } };
    if (m[2] === 'refresh') return r.method === 'POST' ? { status: 200, body: null } : notFoundZone;
    const view = (x: FakeRecord) => ({ id: Number(x.id), zone: FAKE_ZONE, subDomain: relativeOf(x.name) === '@' ? '' : relativeOf(x.name), fieldType: x.type, target: x.type === 'TXT' ? quoted(x.value) : x.value, ttl: x.ttl });
    const notFound = { status: 404, body: { class: 'Client::NotFound', message: `The requested object (id = ${m[3]}) does not exist` } };
    if (r.method === 'GET' && !m[3]) {
      const q = r.url.searchParams;
      const sub = q.get('subDomain');
      const recs = [...s.records.values()].filter((x) => inZone(x.name) && (!q.get('fieldType') || x.type === q.get('fieldType')) && (sub === null || x.name === fullOf(sub)));
      return { status: 200, body: recs.map((x) => Number(x.id)) };
    }
    const rec = m[3] ? s.records.get(m[3]) : undefined;
    if (r.method === 'GET') return rec ? { status: 200, body: view(rec) } : notFound;
    if (r.method === 'DELETE') return rec && drop(s, rec.id) ? { status: 200, body: null } : notFound;
    const b = bodyOf<{ fieldType: string; subDomain: string; target: string; ttl: number }>(r);
    if (r.method === 'POST' && !m[3]) return { status: 200, body: view(upsert(s, fullOf(b.subDomain), b.fieldType, b.target, b.ttl)) };
    if (r.method === 'PUT' && rec) {
      upsert(s, fullOf(b.subDomain ?? relativeOf(rec.name)), rec.type, b.target, b.ttl, rec.id);
      return { status: 200, body: null };
    }
    return notFound;
  });
}
