/**
 * One line of a domain list (a DDNS task's, a certificate's): `www.example.com`, `www:example.com` (forced split between
 * subdomain and zone), `例子.中国` (IDN → punycode) and `example.com?proxied=true&Line=x` (provider parameters).
 */
import { domainToASCII } from 'node:url';
import { MsgError } from '../msgerror.js';

export interface DomainName {
  /** As written, for logs and the list. */
  line: string;
  /** The whole name in ASCII, no trailing dot: `www.example.com`. */
  full: string;
  /** `www`, or `@` at the zone apex. */
  sub: string;
  /** The zone: `example.com`. */
  root: string;
  params: Record<string, string>;
}

/** Two-label public suffixes under which a zone has three labels. */
const SECOND_LEVEL = new Set([
  'com.cn', 'net.cn', 'org.cn', 'gov.cn', 'edu.cn', 'ac.cn',
  'com.hk', 'com.tw', 'org.tw', 'idv.tw', 'com.mo',
  'co.uk', 'org.uk', 'me.uk', 'ltd.uk', 'plc.uk',
  'co.jp', 'ne.jp', 'or.jp', 'co.kr', 'or.kr',
  'com.au', 'net.au', 'org.au', 'co.nz', 'net.nz', 'org.nz',
  'com.br', 'com.sg', 'com.my', 'co.in', 'co.za', 'com.ar', 'com.mx', 'com.tr', 'com.ru',
]);

function ascii(name: string): string {
  const a = domainToASCII(name.trim().replace(/\.$/, '').toLowerCase());
  if (!a) throw new MsgError({ key: 'dnsInvalidDomain', vars: { domain: name } });
  return a;
}

export function parseDomain(line: string): DomainName {
  const q = line.indexOf('?');
  const namePart = (q === -1 ? line : line.slice(0, q)).trim();
  const params: Record<string, string> = {};
  if (q !== -1) for (const [k, v] of new URLSearchParams(line.slice(q + 1))) params[k] = v;
  let sub: string;
  let root: string;
  const colon = namePart.indexOf(':');
  if (colon !== -1) {
    const s = namePart.slice(0, colon).trim();
    root = ascii(namePart.slice(colon + 1));
    sub = s === '' || s === '@' ? '@' : s.split('.').map((l) => (l === '*' ? '*' : ascii(l))).join('.');
  } else {
    const full = namePart.startsWith('*.') ? `*.${ascii(namePart.slice(2))}` : ascii(namePart);
    const labels = full.split('.');
    const tail2 = labels.slice(-2).join('.');
    const rootLabels = SECOND_LEVEL.has(tail2) ? 3 : 2;
    if (labels.length <= rootLabels) {
      root = full;
      sub = '@';
    } else {
      root = labels.slice(-rootLabels).join('.');
      sub = labels.slice(0, -rootLabels).join('.');
    }
  }
  if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(root)) throw new MsgError({ key: 'dnsInvalidDomain', vars: { domain: line } });
  const full = sub === '@' ? root : `${sub}.${root}`;
  return { line, full, sub, root, params };
}

/**
 * A record's full name as the DDNS providers take domain lines: split as `sub:zone` when one of a
 * task's lines names its zone that way (`home:lan.example.com`, a zone deeper than the providers would
 * guess), the longest such zone winning; the full name otherwise.
 */
export function recordLine(name: string, taskDomains: readonly string[]): string {
  let zone = '';
  for (const line of taskDomains) {
    const bare = line.split('?')[0]!.trim().toLowerCase();
    const colon = bare.indexOf(':');
    if (colon === -1) continue;
    const z = bare.slice(colon + 1).trim().replace(/\.$/, '');
    if (z && (name === z || name.endsWith(`.${z}`)) && z.length > zone.length) zone = z;
  }
  if (!zone) return name;
  return name === zone ? `:${zone}` : `${name.slice(0, -zone.length - 1)}:${zone}`;
}
