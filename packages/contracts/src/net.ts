/** Address helpers shared by the daemon and the console (no node:* imports here). */
import { z } from 'zod';
import { msgKey } from './i18n.js';

export function isIPv4(s: string): boolean {
  const parts = s.split('.');
  if (parts.length !== 4) return false;
  return parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255);
}

/** RFC 4291 text forms, with an optional embedded IPv4 tail and an optional zone (`fe80::1%eth0`). */
export function isIPv6(s: string): boolean {
  const zone = s.indexOf('%');
  const addr = zone === -1 ? s : s.slice(0, zone);
  if (zone !== -1 && !/^[\w.-]+$/.test(s.slice(zone + 1))) return false;
  if (addr.length < 2 || addr.length > 45) return false;
  const halves = addr.split('::');
  if (halves.length > 2) return false;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const head = groups(halves[0] ?? '');
  const tail = halves.length === 2 ? groups(halves[1] ?? '') : [];
  const all = [...head, ...tail];
  let width = all.length;
  const last = all[all.length - 1];
  if (last !== undefined && last.includes('.')) {
    if (!isIPv4(last)) return false;
    all.pop();
    width += 1; // an IPv4 tail takes two groups
  }
  if (!all.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return false;
  return halves.length === 2 ? width <= 7 : width === 8;
}

export function isIP(s: string): boolean {
  return isIPv4(s) || isIPv6(s);
}

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
