/**
 * Where a task's address comes from: a list of URLs (first answer that holds an address wins), a
 * network interface with a rule, a shell command, or an odhcpd lease file (IPv6 of a LAN host).
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { isIPv4, isIPv6, type DdnsIpSource } from '@lucky/contracts';
import { listInterfaces, pickAddresses } from '../../core/netinfo.js';
import type { HttpFn } from './http.js';

export type Family = 'ipv4' | 'ipv6';

/** Used when a task's URL list is empty. Tests always give their own. */
export const DEFAULT_IP_URLS: Record<Family, string[]> = {
  ipv4: ['https://4.ipw.cn', 'https://myip.ipip.net', 'https://ddns.oray.com/checkip', 'https://ip.3322.net', 'https://api.ipify.org'],
  ipv6: ['https://6.ipw.cn', 'https://v6.ident.me', 'https://speed.neu6.edu.cn/getIP.php', 'https://api6.ipify.org'],
};

const CANDIDATE: Record<Family, RegExp> = {
  ipv4: /(?:\d{1,3}\.){3}\d{1,3}/g,
  ipv6: /[0-9a-fA-F]{0,4}(?::[0-9a-fA-F]{0,4}){2,7}(?:(?:\d{1,3}\.){3}\d{1,3})?/g,
};

export function validFor(family: Family, ip: string): boolean {
  return family === 'ipv4' ? isIPv4(ip) : isIPv6(ip) && !ip.includes('%');
}

/** The first address of the family in `text`; with a regex, its first group (or whole match) that is one. */
export function extractIp(family: Family, text: string, regex = ''): string | null {
  if (regex) {
    const re = new RegExp(regex, 'g');
    for (const m of text.matchAll(re)) {
      const v = (m[1] ?? m[0]).trim();
      if (validFor(family, v)) return v;
      const inner = extractIp(family, v);
      if (inner) return inner;
    }
    return null;
  }
  for (const m of text.matchAll(CANDIDATE[family])) {
    if (validFor(family, m[0])) return m[0];
  }
  return null;
}

export interface IpResult {
  ip: string;
  /** Where it came from, for logs and the "test" action. */
  detail: string;
}

export interface IpSourceDeps {
  http: HttpFn;
  interfaces?: typeof listInterfaces;
}

export async function getIp(family: Family, src: DdnsIpSource, deps: IpSourceDeps): Promise<IpResult> {
  switch (src.type) {
    case 'url':
      return fromUrls(family, src, deps.http);
    case 'interface':
      return fromInterface(family, src, deps.interfaces ?? listInterfaces);
    case 'command':
      return fromCommand(family, src);
    case 'odhcpd':
      return fromOdhcpd(src);
  }
}

async function fromUrls(family: Family, src: DdnsIpSource, http: HttpFn): Promise<IpResult> {
  const urls = src.urls.length ? src.urls : DEFAULT_IP_URLS[family];
  const errors: string[] = [];
  for (const url of urls) {
    try {
      const res = await http({ url, headers: { 'user-agent': 'Lucky-DDNS', accept: 'text/plain, */*' } });
      if (res.status < 200 || res.status > 299) throw new Error(`HTTP ${res.status}`);
      const ip = extractIp(family, res.text, src.regex);
      if (ip) return { ip, detail: url };
      throw new Error('no address in the answer');
    } catch (err) {
      errors.push(`${url}: ${(err as Error).message}`);
    }
  }
  throw new Error(`no ${family === 'ipv4' ? 'IPv4' : 'IPv6'} address from any URL (${errors.join('; ')})`);
}

function fromInterface(family: Family, src: DdnsIpSource, interfaces: typeof listInterfaces): IpResult {
  const iface = interfaces().find((i) => i.name === src.interface);
  if (!iface) throw new Error(`no network interface named ${src.interface}`);
  const { matches } = pickAddresses(iface, family === 'ipv4' ? 'IPv4' : 'IPv6', src.rule);
  const ip = matches[0];
  if (!ip) throw new Error(`interface ${src.interface} has no ${family === 'ipv4' ? 'IPv4' : 'IPv6'} address matching "${src.rule}"`);
  return { ip, detail: `interface ${src.interface}` };
}

function fromCommand(family: Family, src: DdnsIpSource): Promise<IpResult> {
  return new Promise((resolve, reject) => {
    execFile(
      '/bin/sh',
      ['-c', src.command],
      { timeout: src.commandTimeout * 1000, killSignal: 'SIGKILL', maxBuffer: 1 << 20, windowsHide: true },
      (err, stdout) => {
        if (err) {
          const e = err as Error & { killed?: boolean; code?: number | string };
          return reject(new Error(e.killed ? `command timed out after ${src.commandTimeout}s` : `command failed: ${e.message.split('\n')[0]}`));
        }
        const ip = extractIp(family, String(stdout), src.regex);
        if (!ip) return reject(new Error(`no ${family === 'ipv4' ? 'IPv4' : 'IPv6'} address in the command output`));
        resolve({ ip, detail: 'command' });
      },
    );
  });
}

/**
 * odhcpd's lease file (`/tmp/hosts/odhcpd` on OpenWrt): comment lines
 * `# iface DUID IAID hostname valid id prefixlen addr/len...` and hosts lines `addr name...`.
 */
export async function fromOdhcpd(src: DdnsIpSource): Promise<IpResult> {
  const text = await readFile(src.odhcpdFile, 'utf8').catch((err: Error) => {
    throw new Error(`cannot read ${src.odhcpdFile}: ${err.message}`);
  });
  const want = src.odhcpdHost.toLowerCase();
  const found: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#')) {
      const f = line.slice(1).trim().split(/\s+/);
      const [, duid, , host] = f;
      if (duid?.toLowerCase() !== want && host?.toLowerCase() !== want) continue;
      for (const a of f.slice(7)) {
        const ip = a.split('/')[0] ?? '';
        if (isIPv6(ip)) found.push(ip);
      }
    } else if (line) {
      const [addr, ...names] = line.split(/\s+/);
      if (addr && isIPv6(addr) && names.some((n) => n.toLowerCase() === want || n.toLowerCase().split('.')[0] === want)) found.push(addr);
    }
  }
  const global = found.find((ip) => /^[23]/.test(ip)) ?? found.find((ip) => !/^fe80/i.test(ip));
  if (!global) throw new Error(`no IPv6 lease for ${src.odhcpdHost} in ${src.odhcpdFile}`);
  return { ip: global, detail: `odhcpd ${src.odhcpdHost}` };
}
