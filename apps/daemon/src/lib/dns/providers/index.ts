/** The registry: one entry per provider file. */
import type { DdnsProviderName } from '@lucky/contracts';
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
import type { DnsProvider } from './types.js';
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
export type { DnsProvider } from './types.js';
