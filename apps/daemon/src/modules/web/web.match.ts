/** Host header parsing; the site for a host is picked by lib/domainmatch.ts (exact name, then the longest `*.suffix`). */
import type { IncomingMessage } from 'node:http';

export interface HostPort {
  /** Lower-case name or address, IPv6 without brackets. */
  host: string;
  /** As written, '' when absent. */
  port: string;
}

const NAME_RE = /^[a-z0-9_.-]{1,253}$/;
const V6_RE = /^[0-9a-f:.]{2,45}$/;

/** Parses a Host header; `null` when it is malformed (the caller answers 400). */
export function parseHost(value: string | undefined): HostPort | null {
  if (value === undefined || value === '') return null;
  const v = value.toLowerCase();
  if (v.startsWith('[')) {
    const end = v.indexOf(']');
    if (end < 0) return null;
    const host = v.slice(1, end);
    const rest = v.slice(end + 1);
    if (!V6_RE.test(host)) return null;
    if (rest === '') return { host, port: '' };
    if (!/^:\d{1,5}$/.test(rest)) return null;
    return { host, port: rest.slice(1) };
  }
  const colon = v.indexOf(':');
  const host = colon < 0 ? v : v.slice(0, colon);
  const port = colon < 0 ? '' : v.slice(colon + 1);
  if (!NAME_RE.test(host) || host.includes('..')) return null;
  if (colon >= 0 && !/^\d{1,5}$/.test(port)) return null;
  // A fully qualified name may end with a dot: "example.com." is "example.com".
  return { host: host.endsWith('.') ? host.slice(0, -1) : host, port };
}

/** The host a request names: its Host header, or h2's :authority. */
export function hostOf(req: Pick<IncomingMessage, 'headers'>): string | undefined {
  return req.headers.host ?? (req.headers[':authority'] as string | undefined);
}
