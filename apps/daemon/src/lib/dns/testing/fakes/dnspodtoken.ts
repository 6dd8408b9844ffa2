/**
 * DNSPod's own API (dnsapi.cn) with a DNSPod Token: form POSTs `/Record.List|Create|Modify|Remove`
 * with `login_token=ID,Token`, answers `{ status: { code, message } }` (code "1" success, "-1" login
 * failed, "-2" API limit, "9" not the domain's owner). Served by the DNSPod stand-in beside API 3.0.
 */
import { drop, FAKE_ZONE, inZone, Reject, upsert, type FakeProvider, type FakeRecord, type Reply, type Req } from '../fakeserver.js';

/** The DNSPod Token the stand-in accepts. */
export const DNSPOD_TOKEN = { id: '420001', token: 'f3b0c44298fc1c149afbf4c8996fb924' };

const status = (code: string, message: string, more: object = {}): Reply => ({ status: 200, body: { status: { code, message, created_at: '2024-01-01 00:00:00' }, ...more } });

/** The API limit answer, in this API's shape. */
export const DNSPOD_TOKEN_LIMITED = status('-2', 'API usage is limited');

export const isTokenRequest = (r: Req) => /^\/(Record\.\w+)$/.test(r.url.pathname);

export function dnspodTokenApi(r: Req, st: FakeProvider): Reply {
  const q = Object.fromEntries(new URLSearchParams(r.body).entries());
  if (r.method !== 'POST') return status('2', 'Only POST method is allowed');
  if (!/^[\w .-]+\/[\d.]+ \(.+\)$/.test(String(r.headers['user-agent'] ?? ''))) throw new Reject(200, { status: { code: '-7', message: 'User-Agent is not valid' } }, 'user-agent');
  if (q.login_token !== `${DNSPOD_TOKEN.id},${DNSPOD_TOKEN.token}`) throw new Reject(200, { status: { code: '-1', message: 'Login failed' } }, 'token');
  if (q.format !== 'json') return status('3', 'format');
  if (q.domain !== FAKE_ZONE) return status('9', 'Not the owner of the domain');
  const full = (sub: string | undefined) => (!sub || sub === '@' ? FAKE_ZONE : `${sub}.${FAKE_ZONE}`);
  const view = (x: FakeRecord) => ({ id: x.id, name: x.name === FAKE_ZONE ? '@' : x.name.slice(0, -FAKE_ZONE.length - 1), line: '默认', line_id: '0', type: x.type, ttl: String(x.ttl), value: x.value, enabled: '1' });
  const rec = st.records.get(q.record_id ?? '');
  switch (r.url.pathname) {
    case '/Record.List': {
      const recs = [...st.records.values()].filter((x) => inZone(x.name) && (!q.sub_domain || x.name === full(q.sub_domain)));
      if (!recs.length && q.error_on_empty !== 'no') return status('10', 'No records');
      return status('1', 'Action completed successful', { domain: { id: 9842292, name: FAKE_ZONE }, info: { record_total: String(recs.length) }, records: recs.map(view) });
    }
    case '/Record.Create':
      if (!q.record_type || !q.value || !q.record_line) return status('6', 'Missing parameters');
      if (Number(q.ttl) < 600) return status('32', 'TTL out of range');
      return status('1', 'Action completed successful', { record: { id: upsert(st, full(q.sub_domain), q.record_type, q.value, Number(q.ttl)).id, name: q.sub_domain ?? '@', status: 'enable' } });
    case '/Record.Modify':
      if (!rec || !inZone(rec.name)) return status('8', 'Record id invalid');
      if (!q.record_type || !q.value || !q.record_line) return status('6', 'Missing parameters');
      upsert(st, full(q.sub_domain), q.record_type, q.value, Number(q.ttl ?? rec.ttl), rec.id);
      return status('1', 'Action completed successful', { record: { id: Number(rec.id), name: q.sub_domain ?? '@', value: q.value, status: 'enable' } });
    case '/Record.Remove':
      if (!rec || !inZone(rec.name)) return status('8', 'Record id invalid');
      drop(st, rec.id);
      return status('1', 'Action completed successful');
  }
  return status('3', 'Unknown action');
}
