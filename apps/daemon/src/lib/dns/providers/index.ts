/** The registry: one entry per provider file, and the one way to set a record through one. */
import type { DdnsProviderName } from '@lucky/contracts';
import { MsgError } from '../../msgerror.js';
import { alidns } from './alidns.js';
import { baiducloud } from './baiducloud.js';
import { callback } from './callback.js';
import { cloudflare } from './cloudflare.js';
import { desec } from './desec.js';
import { dnspod } from './dnspod.js';
import { duckdns } from './duckdns.js';
import { dynv6 } from './dynv6.js';
import { godaddy } from './godaddy.js';
import { huaweicloud } from './huaweicloud.js';
import { namecheap } from './namecheap.js';
import { namesilo } from './namesilo.js';
import { porkbun } from './porkbun.js';
import { rfc2136 } from './rfc2136.js';
import { recordTypes, type DnsProvider, type ProviderContext, type RecordRef, type RecordWant, type SetOutcome } from './types.js';
import { vercel } from './vercel.js';

export const PROVIDERS: Readonly<Record<DdnsProviderName, DnsProvider>> = {
  cloudflare,
  alidns,
  dnspod,
  huaweicloud,
  baiducloud,
  porkbun,
  godaddy,
  namesilo,
  namecheap,
  dynv6,
  duckdns,
  desec,
  vercel,
  callback,
  rfc2136,
};

/** Sets one record; a type the provider cannot set is refused before any call. */
export function setRecord(name: DdnsProviderName, ctx: ProviderContext, want: RecordWant): Promise<SetOutcome> {
  if (!recordTypes(name).includes(want.type)) return Promise.reject(new MsgError({ key: 'dnsTypeUnsupported', vars: { provider: name, type: want.type } }));
  return PROVIDERS[name].set(ctx, want);
}

/** Deletes a name's records of a type (those holding `value` when given), where the provider can; false where it cannot. */
export async function removeRecord(name: DdnsProviderName, ctx: ProviderContext, want: RecordRef): Promise<boolean> {
  const p = PROVIDERS[name];
  if (!p.remove) return false;
  await p.remove(ctx, want);
  return true;
}

export type { DnsProvider, ProviderContext, RecordRef, RecordType, RecordWant, SetOutcome } from './types.js';
