/**
 * Where a task's address comes from: a list of URLs (first answer that holds an address wins), a
 * network interface with a rule, a shell command, or an odhcpd lease file (IPv6 of a LAN host).
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { isIPv4, isIPv6, type DdnsIpSource, type Msg } from '@lucky/contracts';
import { listInterfaces, pickAddresses } from '../../core/netinfo.js';
import type { HttpFn } from '../../lib/http/request.js';
import { joinMsgs, MsgError, msgOf } from '../../lib/msgerror.js';

export type Family = 'ipv4' | 'ipv6';
/** How logs and messages name a family. */
export const FAMILY_NAME: Record<Family, string> = { ipv4: 'IPv4', ipv6: 'IPv6' };

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
  detail: Msg;
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
  const errors: Msg[] = [];
  for (const url of urls) {
    try {
      const res = await http({ url, headers: { 'user-agent': 'Lucky-DDNS', accept: 'text/plain, */*' } });
      if (res.status < 200 || res.status > 299) throw new MsgError({ key: 'httpStatus', vars: { status: res.status } });
      const ip = extractIp(family, res.text, src.regex);
      if (ip) return { ip, detail: { key: 'rawText', vars: { text: url } } };
      throw new MsgError({ key: 'ddnsNoAddressInAnswer' });
    } catch (err) {
      errors.push({ key: 'ddnsUrlFailed', vars: { url, reason: msgOf(err) } });
    }
  }
  throw new MsgError({ key: 'ddnsNoAddressFromUrls', vars: { family: FAMILY_NAME[family], errors: joinMsgs(errors) } });
}

function fromInterface(family: Family, src: DdnsIpSource, interfaces: typeof listInterfaces): IpResult {
  const iface = interfaces().find((i) => i.name === src.interface);
  if (!iface) throw new MsgError({ key: 'interfaceNotFound', vars: { name: src.interface } });
  const { matches } = pickAddresses(iface, family === 'ipv4' ? 'IPv4' : 'IPv6', src.rule);
  const ip = matches[0];
  if (!ip) throw new MsgError({ key: 'ddnsInterfaceNoMatch', vars: { name: src.interface, family: FAMILY_NAME[family], rule: src.rule } });
  return { ip, detail: { key: 'ddnsFromInterface', vars: { name: src.interface } } };
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
          return reject(
            new MsgError(
              e.killed
                ? { key: 'ddnsCommandTimeout', vars: { seconds: src.commandTimeout } }
                : { key: 'ddnsCommandFailed', vars: { detail: e.message.split('\n')[0] ?? '' } },
            ),
          );
        }
        const ip = extractIp(family, String(stdout), src.regex);
        if (!ip) return reject(new MsgError({ key: 'ddnsCommandNoAddress', vars: { family: FAMILY_NAME[family] } }));
        resolve({ ip, detail: { key: 'ddnsFromCommand' } });
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
    throw new MsgError({ key: 'ddnsFileUnreadable', vars: { file: src.odhcpdFile, detail: err.message } });
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
  if (!global) throw new MsgError({ key: 'ddnsNoLease', vars: { host: src.odhcpdHost, file: src.odhcpdFile } });
  return { ip: global, detail: { key: 'ddnsFromOdhcpd', vars: { host: src.odhcpdHost } } };
}
