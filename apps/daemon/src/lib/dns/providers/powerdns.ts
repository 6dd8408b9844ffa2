/**
 * PowerDNS Authoritative HTTP API at the user's server (`X-API-Key`; `server` is the webserver's
 * address, `id` the server id, `localhost` when empty). The zone is read whole with its RRsets; a
 * name's set of a type is replaced (`changetype: REPLACE`) or deleted (`DELETE`) with one PATCH.
 * Names are absolute with the trailing dot; TXT contents are quoted character-strings.
 */
import { rrsetProvider } from './generic.js';
import { rest } from './rest.js';
import { quotedValue, quoteTxt, zoneNotFound, type ProviderContext, type RecordRef } from './types.js';

interface PdnsRrset {
  name: string;
  type: string;
  ttl: number;
  records: Array<{ content: string; disabled?: boolean }>;
}
interface PdnsZone {
  /** The zone's API path (`/api/v1/servers/localhost/zones/example.com.`). */
  path: string;
  rrsets: PdnsRrset[];
}

const api = (ctx: ProviderContext) => rest(ctx, 'PowerDNS', { 'x-api-key': ctx.creds.secret });
const fqdn = (ref: RecordRef) => `${ref.domain.full}.`;

export const powerdns = rrsetProvider<PdnsZone>(
  { name: 'powerdns', base: '', baseOf: (creds) => creds.server.replace(/\/+$/, '') },
  {
    async zone(ctx, d) {
      const path = `/api/v1/servers/${encodeURIComponent(ctx.creds.id || 'localhost')}/zones/${encodeURIComponent(`${d.root}.`)}`;
      // Recent servers answer 404 for a zone they do not hold, older ones 422 "Could not find domain".
      const zone = await api(ctx)
        .find<{ rrsets?: PdnsRrset[] }>('GET', path)
        .catch((err: unknown) => {
          if (err instanceof Error && /Could not find domain/i.test(err.message)) return null;
          throw err;
        });
      if (!zone) throw zoneNotFound('PowerDNS', d.root);
      return { path, rrsets: zone.rrsets ?? [] };
    },
    async get(_ctx, zone, ref) {
      const set = zone.rrsets.find((s) => s.name === fqdn(ref) && s.type === ref.type);
      return set && set.records.length ? { values: set.records.map((r) => quotedValue(ref.type, r.content)), ttl: set.ttl } : null;
    },
    put: async (ctx, zone, ref, set) => {
      const records = set.values.map((v) => ({ content: ref.type === 'TXT' ? quoteTxt(v) : v, disabled: false }));
      await api(ctx).call('PATCH', zone.path, { rrsets: [{ name: fqdn(ref), type: ref.type, ttl: set.ttl, changetype: 'REPLACE', records }] });
    },
    delete: async (ctx, zone, ref) => {
      await api(ctx).call('PATCH', zone.path, { rrsets: [{ name: fqdn(ref), type: ref.type, changetype: 'DELETE' }] });
    },
  },
);
