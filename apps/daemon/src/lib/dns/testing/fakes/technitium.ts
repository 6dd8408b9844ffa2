/**
 * Technitium DNS Server HTTP API: form POSTs to `/api/zones/records/{get,add,update,delete}`, the
 * token in the form; records named by name, type and value (`ipAddress`/`text`, `newIpAddress`/`newText`
 * for an update); answers `{ status, errorMessage, response }` with HTTP 200 (`invalid-token` for a
 * token it does not know). The zone-missing wording here is the stand-in's own.
 */
import { drop, FAKE_ZONE, Reject, serve, upsert, type FakeCreds, type FakeProvider, type FakeRecord } from '../fakeserver.js';

export function fakeTechnitium(c: FakeCreds): Promise<FakeProvider> {
  return serve('technitium', (r, st) => {
    const op = /^\/api\/zones\/records\/(get|add|update|delete)$/.exec(r.url.pathname)?.[1];
    if (!op || r.method !== 'POST') return { status: 404, body: 'not found' };
    const q = Object.fromEntries(new URLSearchParams(r.body).entries());
    if (q.token !== c.secret) throw new Reject(200, { status: 'invalid-token', errorMessage: 'Invalid token or session expired.' }, 'token');
    const error = (errorMessage: string) => ({ status: 200, body: { status: 'error', errorMessage } });
    const ok = (response: unknown = {}) => ({ status: 200, body: { status: 'ok', response } });
    if (q.zone !== FAKE_ZONE) return error(`No such zone was found: ${q.zone}`);
    const domain = q.domain ?? '';
    if (domain !== FAKE_ZONE && !domain.endsWith(`.${FAKE_ZONE}`)) return error('The domain name does not belong to the zone.');
    const view = (x: FakeRecord) => ({ disabled: false, name: x.name, type: x.type, ttl: x.ttl, rData: x.type === 'TXT' ? { text: x.value } : { ipAddress: x.value }, dnssecStatus: 'Disabled' });
    if (op === 'get') return ok({ zone: { name: FAKE_ZONE, type: 'Primary', disabled: false }, records: [...st.records.values()].filter((x) => x.name === domain).map(view) });
    const type = q.type ?? '';
    if (!['A', 'AAAA', 'TXT'].includes(type)) return error(`Type not supported: ${type}`);
    const valueOf = (prefix: string) => (type === 'TXT' ? q[prefix ? `${prefix}Text` : 'text'] : q[prefix ? `${prefix}IpAddress` : 'ipAddress']);
    const old = st.all(domain, type).find((x) => x.value === valueOf(''));
    if (op === 'add') {
      if (valueOf('') === undefined || !q.ttl) return error('Parameter missing.');
      if (old) return error('Cannot add record: record already exists.');
      upsert(st, domain, type, valueOf('')!, Number(q.ttl));
      return ok({ zone: { name: FAKE_ZONE }, addedRecord: {} });
    }
    if (!old) return error('Cannot update record: record does not exist.');
    if (op === 'delete') {
      drop(st, old.id);
      return ok();
    }
    const next = valueOf('new');
    if (next === undefined) return error('Parameter missing.');
    upsert(st, domain, type, next, Number(q.ttl ?? old.ttl), old.id);
    return ok({ zone: { name: FAKE_ZONE }, updatedRecord: {} });
  }, { limited: { status: 429, body: 'Too Many Requests' } });
}
