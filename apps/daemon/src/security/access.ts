/**
 * Who may reach the admin console, decided per request from the saved policy: loopback always,
 * then the blacklist, the whitelist, the WAN switch and what counts as local.
 */
import type { AccessEntry, BaseConfigFile } from '@lucky/contracts';
import { inCidr, ipBytes, isLocalAddress, parseCidr, type Cidr } from '../core/cidr.js';

export type AccessVerdict = 'allow' | 'blacklisted' | 'notWhitelisted' | 'notLocal';

interface Compiled {
  blacklist: { cidr: Cidr; expires: number }[];
  whitelist: { cidr: Cidr; expires: number }[];
  local: Cidr[];
}

// The config object is replaced on every save, so it is a safe cache key.
const cache = new WeakMap<object, Compiled>();

function compileEntries(list: AccessEntry[]) {
  return list.flatMap((e) => {
    const cidr = parseCidr(e.cidr);
    return cidr ? [{ cidr, expires: e.expires }] : [];
  });
}

function compiled(cfg: Readonly<BaseConfigFile>): Compiled {
  let c = cache.get(cfg.Access);
  if (!c) {
    c = {
      blacklist: compileEntries(cfg.Access.blacklist),
      whitelist: compileEntries(cfg.Access.whitelist),
      local: cfg.Access.localNetworks.flatMap((s) => parseCidr(s) ?? []),
    };
    cache.set(cfg.Access, c);
  }
  return c;
}

const LOOPBACK = [parseCidr('127.0.0.0/8')!, parseCidr('::1')!];

export function decideAccess(ip: string, cfg: Readonly<BaseConfigFile>, now = Date.now()): AccessVerdict {
  const bytes = ipBytes(ip);
  if (!bytes) return 'notLocal';
  if (LOOPBACK.some((c) => inCidr(bytes, c))) return 'allow';
  const c = compiled(cfg);
  const live = (e: { cidr: Cidr; expires: number }) => (e.expires === 0 || e.expires > now) && inCidr(bytes, e.cidr);
  if (c.blacklist.some(live)) return 'blacklisted';
  if (c.whitelist.some(live)) return 'allow';
  if (cfg.Access.whitelistOnly) return 'notWhitelisted';
  if (cfg.AllowInternetAccess) return 'allow';
  if (isLocalAddress(ip) || c.local.some((l) => inCidr(bytes, l))) return 'allow';
  return 'notLocal';
}
