/**
 * DNS Made Easy API v2.0 (`x-dnsme-apiKey`, `x-dnsme-requestDate`, `x-dnsme-hmac`: lib/http/sign):
 * the managed domain found by name, its records filtered by name and type, written by id (`name`
 * relative, '' at the apex). TXT values are quoted, read with or without quotes.
 */
import { dnsMadeEasyHeaders } from '../../http/sign/dnsmadeeasy.js';
import { recordsProvider } from './generic.js';
import { rest } from './rest.js';
import { quotedValue, quoteTxt, relativeName, zoneNotFound, type ProviderContext, type RecordWant } from './types.js';

interface DmeRecord {
  id: number;
  type: string;
  name: string;
  value: string;
  ttl: number;
}

/** Each request signs its own date. */
const api = (ctx: ProviderContext) => rest(ctx, 'DNS Made Easy', dnsMadeEasyHeaders({ apiKey: ctx.creds.id, secretKey: ctx.creds.secret, date: ctx.now() }));
const body = (want: RecordWant) => ({ name: relativeName(want.domain), type: want.type, value: want.type === 'TXT' ? quoteTxt(want.value) : want.value, ttl: want.ttl, gtdLocation: 'DEFAULT' });

export const dnsmadeeasy = recordsProvider<number, DmeRecord>(
  { name: 'dnsmadeeasy', base: 'https://api.dnsmadeeasy.com/V2.0' },
  {
    async zone(ctx, d) {
      const found = await api(ctx).find<{ id: number }>('GET', `/dns/managed/name?domainname=${encodeURIComponent(d.root)}`);
      if (!found) throw zoneNotFound('DNS Made Easy', d.root);
      return found.id;
    },
    async list(ctx, zone, ref) {
      const q = new URLSearchParams({ recordName: relativeName(ref.domain), type: ref.type });
      const { data } = await api(ctx).call<{ data: DmeRecord[] }>('GET', `/dns/managed/${zone}/records?${q}`);
      return data.filter((r) => r.type === ref.type && r.name === relativeName(ref.domain));
    },
    valueOf: (r) => quotedValue(r.type, r.value),
    create: async (ctx, zone, want) => {
      await api(ctx).call('POST', `/dns/managed/${zone}/records`, body(want));
    },
    update: async (ctx, zone, rec, want) => {
      await api(ctx).call('PUT', `/dns/managed/${zone}/records/${rec.id}`, { id: rec.id, ...body(want) });
    },
    delete: async (ctx, zone, rec) => {
      await api(ctx).call('DELETE', `/dns/managed/${zone}/records/${rec.id}`);
    },
  },
);
