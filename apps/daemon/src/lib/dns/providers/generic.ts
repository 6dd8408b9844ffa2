/**
 * The two shapes a provider's record API takes, with `set`, `list` and `remove` written once for
 * each (the semantics of types.ts):
 * - records one by one, each with an id (`recordsProvider`): list the name's records of the type,
 *   create, update one, delete one;
 * - record sets (`rrsetProvider`): read the name's set of the type, put it whole, delete it.
 * A provider file then says only how its API does those steps (and how it finds the zone).
 */
import type { DomainName } from '../domain.js';
import { pickRecord, recordsToRemove, sameValue, setHolds, type DnsProvider, type ProviderContext, type RecordRef, type RecordWant } from './types.js';

type Identity = Pick<DnsProvider, 'name' | 'base'> & Partial<Pick<DnsProvider, 'baseOf'>>;

export interface RecordsApi<Z, R> {
  /** The zone the name is in, as the API knows it (an id); `dnsZoneNotFound` when the account has none. */
  zone(ctx: ProviderContext, domain: DomainName): Promise<Z>;
  /** The name's records of the type. */
  list(ctx: ProviderContext, zone: Z, ref: RecordRef): Promise<R[]>;
  /** A record's value (TXT: the text, unquoted). */
  valueOf(r: R): string;
  create(ctx: ProviderContext, zone: Z, want: RecordWant): Promise<void>;
  update(ctx: ProviderContext, zone: Z, rec: R, want: RecordWant): Promise<void>;
  delete(ctx: ProviderContext, zone: Z, rec: R, ref: RecordRef): Promise<void>;
  /** After records changed, where the API wants the changes applied (OVH refreshes the zone). */
  applied?(ctx: ProviderContext, zone: Z): Promise<void>;
}

export function recordsProvider<Z, R>(who: Identity, api: RecordsApi<Z, R>): DnsProvider {
  return {
    ...who,
    async set(ctx, want) {
      const zone = await api.zone(ctx, want.domain);
      const rec = pickRecord(await api.list(ctx, zone, want), api.valueOf, want);
      if (rec && sameValue(api.valueOf(rec), want)) return 'same';
      if (rec) await api.update(ctx, zone, rec, want);
      else await api.create(ctx, zone, want);
      await api.applied?.(ctx, zone);
      return rec ? 'updated' : 'created';
    },
    async list(ctx, ref) {
      const zone = await api.zone(ctx, ref.domain);
      return (await api.list(ctx, zone, ref)).map(api.valueOf);
    },
    async remove(ctx, ref) {
      const zone = await api.zone(ctx, ref.domain);
      const gone = recordsToRemove(await api.list(ctx, zone, ref), api.valueOf, ref);
      for (const rec of gone) await api.delete(ctx, zone, rec, ref);
      if (gone.length) await api.applied?.(ctx, zone);
    },
  };
}

export interface RrSet {
  /** The values (TXT: the texts, unquoted). */
  values: string[];
  ttl: number;
  /** The values as the API keeps them (TXT quoted its way), where deleting must name them exactly. */
  raw?: string[];
}

export interface RrsetApi<Z> {
  zone(ctx: ProviderContext, domain: DomainName): Promise<Z>;
  /** The name's set of the type, null when it has none. */
  get(ctx: ProviderContext, zone: Z, ref: RecordRef): Promise<RrSet | null>;
  /** Makes the name's set of the type exactly these values; `exists` says whether there was one. */
  put(ctx: ProviderContext, zone: Z, ref: RecordRef, set: RrSet, exists: boolean): Promise<void>;
  /** Deletes the name's set of the type (`set` is what it holds now: APIs that delete by content want it). */
  delete(ctx: ProviderContext, zone: Z, ref: RecordRef, set: RrSet): Promise<void>;
}

export function rrsetProvider<Z>(who: Identity, api: RrsetApi<Z>): DnsProvider {
  return {
    ...who,
    async set(ctx, want) {
      const zone = await api.zone(ctx, want.domain);
      const set = await api.get(ctx, zone, want);
      if (set && setHolds(set.values, want)) return 'same';
      await api.put(ctx, zone, want, { values: [want.value], ttl: want.ttl }, set !== null);
      return set ? 'updated' : 'created';
    },
    async list(ctx, ref) {
      const zone = await api.zone(ctx, ref.domain);
      return (await api.get(ctx, zone, ref))?.values ?? [];
    },
    async remove(ctx, ref) {
      const zone = await api.zone(ctx, ref.domain);
      const set = await api.get(ctx, zone, ref);
      if (!set) return;
      const gone = recordsToRemove(set.values, (v) => v, ref);
      if (gone.length === 0) return;
      const kept = set.values.filter((v) => !gone.includes(v));
      if (kept.length) await api.put(ctx, zone, ref, { values: kept, ttl: set.ttl }, true);
      else await api.delete(ctx, zone, ref, set);
    },
  };
}
