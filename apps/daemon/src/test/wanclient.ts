/**
 * A client on the internet side of a NAT lab: dig and curl run inside the lab's WAN namespace, so
 * what they reach is what a visitor from outside would reach (the router's WAN address, its port
 * mappings, the lab's DNS). Names are looked up at the lab's BIND only and handed to curl with
 * `--resolve`: curl never asks the machine's resolver, whose servers lie outside the lab.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NsHandle } from './natlab.js';

export interface WanResponse {
  status: number;
  /** The response's headers, names in lower case (a repeated header's values joined with ", "). */
  headers: Record<string, string>;
  body: string;
}

export interface WanRequestOptions {
  /** The address to connect to instead of the name's A record at the lab's BIND. */
  resolveTo?: string;
}

export interface WanClient {
  /** `dig +short` at the lab's BIND, from the WAN namespace: the answer's lines (empty when there is none). */
  resolve(name: string, type?: string): Promise<string[]>;
  /** GET with curl from the WAN namespace; rejects when curl cannot complete it (refused, timed out). */
  http(url: string, o?: WanRequestOptions): Promise<WanResponse>;
  /** The same over HTTPS, trusting `caPem` (the system's store otherwise). */
  https(url: string, o?: WanRequestOptions & { caPem?: string }): Promise<WanResponse>;
  /** Removes its temp dir. */
  close(): void;
}

const CONNECT_TIMEOUT_S = 3;
const MAX_TIME_S = 8;

/** A file curl wrote, or '' when it wrote none (curl makes its -o file only once a body byte comes). */
function readMade(file: string): string {
  if (!existsSync(file)) return '';
  const text = readFileSync(file, 'utf8');
  rmSync(file);
  return text;
}

/** The last header block of curl's -D file (a 100 Continue or a proxy adds one before it). */
function parseHeaders(text: string): Record<string, string> {
  const blocks = text.split(/\r?\n\r?\n/).filter((b) => b.trim() !== '');
  const lines = (blocks.at(-1) ?? '').split(/\r?\n/).slice(1);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    if (i <= 0) continue;
    const name = line.slice(0, i).trim().toLowerCase();
    const value = line.slice(i + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return headers;
}

export function wanClient(wan: NsHandle, dns: { host: string; port: number }): WanClient {
  const dir = mkdtempSync(join(tmpdir(), 'lucky-wanclient-'));
  let n = 0;

  const resolve = async (name: string, type = 'A') => {
    const out = await wan.exec('dig', ['+short', '+time=2', '+tries=2', '-p', String(dns.port), `@${dns.host}`, name, type], 10_000);
    return out.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  };

  const get = async (url: string, o: WanRequestOptions & { caPem?: string }) => {
    const u = new URL(url);
    const host = u.hostname.replace(/^\[|\]$/g, '');
    const port = u.port || (u.protocol === 'https:' ? '443' : '80');
    const args = ['-sS', '--noproxy', '*', '--connect-timeout', String(CONNECT_TIMEOUT_S), '--max-time', String(MAX_TIME_S)];
    if (!isIP(host)) {
      const to = o.resolveTo ?? (await resolve(host, 'A')).find((a) => isIP(a) === 4);
      // Without an address curl would ask the machine's resolver: refused here rather than sent out.
      if (!to) throw new Error(`${host}: no A record at the lab's BIND (${dns.host}:${dns.port})`);
      args.push('--resolve', `${host}:${port}:${to}`);
    }
    const id = n++;
    const headerFile = join(dir, `h${id}`);
    const bodyFile = join(dir, `b${id}`);
    if (o.caPem) {
      const caFile = join(dir, `ca${id}.pem`);
      writeFileSync(caFile, o.caPem);
      args.push('--cacert', caFile);
    }
    args.push('-D', headerFile, '-o', bodyFile, '-w', '%{http_code}', url);
    // The namespace shares this one's files (ip netns exec changes only the network and /sys).
    const status = Number(await wan.exec('curl', args, (MAX_TIME_S + 2) * 1000));
    return { status, headers: parseHeaders(readMade(headerFile)), body: readMade(bodyFile) };
  };

  return {
    resolve,
    http: (url, o = {}) => get(url, o),
    https: (url, o = {}) => get(url, o),
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}
