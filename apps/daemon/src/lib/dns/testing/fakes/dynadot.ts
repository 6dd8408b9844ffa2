/** Dynadot `set_ddns`: the domain's dynamic DNS password; answers `{ status, error_code, content }`, error_code -1 on refusal. */
import { FAKE_ZONE, fullOf, Reject, serve, upsert, type FakeCreds, type FakeProvider } from '../fakeserver.js';

export function fakeDynadot(c: FakeCreds): Promise<FakeProvider> {
  return serve('dynadot', (r, st) => {
    if (r.url.pathname !== '/set_ddns') return { status: 404, body: 'not found' };
    const q = r.url.searchParams;
    const refuse = (why: string) => ({ status: 200, body: { status: 'error', error_code: -1, content: [why] } });
    if (q.get('pwd') !== c.secret) throw new Reject(200, { status: 'error', error_code: -1, content: ['invalid dynamic dns password'] }, 'password');
    if (q.get('domain') !== FAKE_ZONE) return refuse('domain not found in your account');
    const type = q.get('type') ?? '';
    if (type !== 'A' && type !== 'AAAA') return refuse('invalid type');
    const name = q.get('containRoot') === 'true' ? FAKE_ZONE : fullOf(q.get('subDomain') ?? '');
    upsert(st, name, type, q.get('ip') ?? '', Number(q.get('ttl')), st.find(name, type)?.id);
    return { status: 200, body: { status: 'success', error_code: 0, content: [`${name} ${type} ${q.get('ip')}`] } };
  });
}
