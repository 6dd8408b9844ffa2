/** What the rule list shows: where a rule listens, a link to open it, its figures, domains and automatic certificate. */
import { autoCertNames, autoCertOf, type WebFigures, type WebRule } from '@lucky/contracts';
import { formatBytes } from '../../lib/helpers';

/** "0.0.0.0:8080", "[::]:8443", "127.0.0.1:80" — what the rule listens on. */
export function listenText(r: Pick<WebRule, 'network' | 'address' | 'port'>): string {
  const host = r.address || (r.network === 'tcp6' ? '::' : '0.0.0.0');
  return host.includes(':') ? `[${host}]:${r.port}` : `${host}:${r.port}`;
}

/** A URL to open the rule in the browser (the page's host when it listens on every address). */
export function openUrl(r: Pick<WebRule, 'network' | 'address' | 'port' | 'protocol'>, pageHost: string): string {
  const any = r.address === '' || r.address === '0.0.0.0' || r.address === '::';
  const host = any ? pageHost : r.address;
  const h = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `${r.protocol}://${h}:${r.port}/`;
}

/** Status codes by class, most frequent first: [["200", 10], ["404", 1]]. */
export function codeList(codes: Record<string, number>): [string, number][] {
  return Object.entries(codes)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

export function codeColor(code: string): string {
  const c = Number(code);
  if (c === 0) return 'gray';
  if (c < 300) return 'green';
  if (c < 400) return 'blue';
  if (c < 500) return 'orange';
  return 'red';
}

/** Requests as a plain count with thousands separators; bytes 1000-based with 3 significant digits. */
export function figuresText(f: WebFigures): { requests: string; bytesIn: string; bytesOut: string; connections: string } {
  return {
    requests: f.requests.toLocaleString('en-US'),
    bytesIn: formatBytes(f.bytesIn),
    bytesOut: formatBytes(f.bytesOut),
    connections: String(f.connections),
  };
}

/** The domains a rule serves, for the list. */
export function ruleDomains(r: Pick<WebRule, 'subRules'>): string[] {
  return [...new Set(r.subRules.flatMap((s) => s.domains))];
}

/** The names an HTTPS rule's automatic certificate is ordered for; null when it has none. */
export function autoCertListNames(r: Pick<WebRule, 'protocol' | 'certs' | 'subRules'>): string[] | null {
  const cert = autoCertOf(r);
  return cert ? autoCertNames(r, cert) : null;
}
