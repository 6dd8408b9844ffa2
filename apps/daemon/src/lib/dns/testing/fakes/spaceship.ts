/** Spaceship DNS API: API key and secret headers; a domain's records without ids (type, name, value), PUT adds, DELETE removes. */
import { drop, FAKE_ZONE, fullOf, inZone, Reject, relativeOf, serve, upsert, type FakeCreds, type FakeProvider, type FakeRecord } from '../fakeserver.js';

interface Item {
  type: string;
  name: string;
  address?: string;
  value?: string;
  ttl?: number;
}

export function fakeSpaceship(c: FakeCreds): Promise<FakeProvider> {
  return serve('spaceship', (r, st) => {
    if (r.headers['x-api-key'] !== c.id || r.headers['x-api-secret'] !== c.secret) throw new Reject(401, { detail: 'API key or secret is not valid' }, 'key');
    const m = /^\/dns\/records\/([^/]+)$/.exec(r.url.pathname);
    if (!m || m[1] !== FAKE_ZONE) return { status: 404, body: { detail: 'Domain not found' } };
    const valueOf = (i: Item) => (i.type === 'TXT' ? i.value : i.address);
    const view = (x: FakeRecord): Item => ({ type: x.type, name: relativeOf(x.name), ...(x.type === 'TXT' ? { value: x.value } : { address: x.value }), ttl: x.ttl });
    const holding = (i: Item) => [...st.records.values()].find((x) => x.type === i.type && x.name === fullOf(i.name) && x.value === valueOf(i));
    if (r.method === 'GET') {
      const items = [...st.records.values()].filter((x) => inZone(x.name)).map(view);
      return { status: 200, body: { items, total: items.length } };
    }
    if (r.method === 'DELETE') {
      for (const i of JSON.parse(r.body) as Item[]) {
        const x = holding(i);
        if (x) drop(st, x.id);
      }
      return { status: 204, body: '' };
    }
    if (r.method !== 'PUT') return { status: 405, body: { detail: 'Method not allowed' } };
    const b = JSON.parse(r.body) as { force: boolean; items: Item[] };
    for (const i of b.items) {
      const v = valueOf(i);
      if (typeof v !== 'string') return { status: 422, body: { detail: 'Validation failed', data: [{ field: 'items', details: 'value missing' }] } };
      if (!holding(i)) upsert(st, fullOf(i.name), i.type, v, i.ttl ?? 3600);
    }
    return { status: 204, body: '' };
  });
}
