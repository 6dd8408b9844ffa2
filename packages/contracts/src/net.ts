/** Address helpers shared by the daemon and the console (no node:* imports here). */
import { z } from 'zod';
import { msgKey } from './i18n.js';
import { isIP, isIPv4, isIPv6 } from './ip.js';

export { isIP, isIPv4, isIPv6 };

/** `10.0.0.0/8`, `fd00::/8`, or a bare address (a single host). */
export function isCidr(s: string): boolean {
  const [addr, bits, ...rest] = s.split('/');
  if (rest.length || addr === undefined) return false;
  const v4 = isIPv4(addr);
  if (!v4 && !isIPv6(addr)) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (v4 ? 32 : 128);
}

export const ZPort = z.number({ error: msgKey('invalidPort') }).int().min(1, { error: msgKey('invalidPort') }).max(65535, {
  error: msgKey('invalidPort'),
});
export const ZIp = z.string().refine(isIP, { error: msgKey('invalidIp') });
export const ZIpv4 = z.string().refine(isIPv4, { error: msgKey('invalidIpv4') });
export const ZIpv6 = z.string().refine(isIPv6, { error: msgKey('invalidIpv6') });
/** An address to listen on: empty means all addresses. */
export const ZListenHost = z.string().refine((s) => s === '' || isIP(s), { error: msgKey('invalidIp') });
export const ZMac = z
  .string()
  .trim()
  .regex(/^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$|^[0-9a-fA-F]{12}$/, { error: msgKey('invalidMac') });
export const ZNonEmpty = z.string().trim().min(1, { error: msgKey('cannotBeEmpty') });
/** An address or a range: `10.0.0.0/8`, `fd00::/8`, `192.168.1.1`. */
export const ZCidr = z.string().trim().refine(isCidr, { error: msgKey('invalidCidr') });

/** `host`, `host:port`, `[v6]:port`; null when it is none of them. */
export function parseHostPort(s: string, defPort: number): { host: string; port: number } | null {
  const t = s.trim();
  let host = t;
  let port = defPort;
  const br = /^\[([^\]]+)\](?::(\d+))?$/.exec(t);
  if (br) {
    host = br[1]!;
    if (br[2]) port = Number(br[2]);
  } else if ((t.match(/:/g) ?? []).length === 1) {
    const [h, p] = t.split(':');
    host = h!;
    port = Number(p);
  }
  if (!Number.isInteger(port) || port < 1 || port > 65535 || host === '') return null;
  if (!isIP(host) && !/^[A-Za-z0-9.-]+$/.test(host)) return null;
  return { host, port };
}
