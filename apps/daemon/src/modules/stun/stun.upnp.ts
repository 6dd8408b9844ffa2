/**
 * UPnP IGD client: finds the router by SSDP (or takes its description URL), reads which WAN
 * connection service it offers, and asks it for port mappings and its external address by SOAP.
 * Plain HTTP only, as IGD is; every network step is bounded.
 */
import dgram from 'node:dgram';
import http from 'node:http';
import { MsgError } from '../../lib/msgerror.js';
import type { MapRequest, MapResult, PortMapper } from './stun.portmap.js';

const SSDP_ADDR = '239.255.255.250';
const SSDP_PORT = 1900;
const SEARCH_TARGETS = [
  'urn:schemas-upnp-org:device:InternetGatewayDevice:2',
  'urn:schemas-upnp-org:device:InternetGatewayDevice:1',
  'urn:schemas-upnp-org:service:WANIPConnection:2',
  'urn:schemas-upnp-org:service:WANIPConnection:1',
  'urn:schemas-upnp-org:service:WANPPPConnection:1',
];
/** In the order we prefer them: v2 has lease semantics v1 routers often lack. */
const SERVICE_TYPES = [
  'urn:schemas-upnp-org:service:WANIPConnection:2',
  'urn:schemas-upnp-org:service:WANIPConnection:1',
  'urn:schemas-upnp-org:service:WANPPPConnection:1',
];
const MAX_BODY = 256 * 1024;
const ONLY_PERMANENT_LEASES = 725;

export interface UpnpOptions {
  /** The device description URL; empty = discover by SSDP. */
  gatewayUrl?: string;
  /** Our LAN address: SSDP goes out of its interface only, and it is the mapping's internal client. */
  localAddress?: string;
  /** Bound of each step (discovery, each HTTP exchange). */
  timeoutMs?: number;
}

interface Service {
  /** The description URL, shown as the gateway. */
  location: string;
  type: string;
  controlUrl: string;
  /** Our address as the gateway sees it, from the connection that fetched the description. */
  localAddress: string;
}

// --- a small XML reader: enough for device descriptions and SOAP answers ------------------------

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeXml(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (all, e: string) => {
    if (e[0] === '#') {
      const n = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(n) && n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : all;
    }
    return ENTITIES[e.toLowerCase()] ?? all;
  });
}

export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' }[c]};`);
}

/** Bodies of every element with this local name (any namespace prefix), outermost first. */
export function xmlElements(xml: string, name: string): string[] {
  const out: string[] = [];
  // A commented-out element is not there.
  const clean = xml.replace(/<!--[\s\S]*?-->/g, '');
  const open = new RegExp(`<(?:[A-Za-z_][\\w.-]*:)?${name}(?:\\s[^>]*?)?(/?)>`, 'g');
  let m: RegExpExecArray | null;
  while ((m = open.exec(clean))) {
    if (m[1] === '/') {
      out.push('');
      continue;
    }
    const close = new RegExp(`</(?:[A-Za-z_][\\w.-]*:)?${name}\\s*>`, 'g');
    close.lastIndex = open.lastIndex;
    const c = close.exec(clean);
    if (!c) break;
    out.push(clean.slice(open.lastIndex, c.index));
    open.lastIndex = c.index + c[0].length;
  }
  return out;
}

/** The text of the first element with this local name, decoded; null when there is none. */
export function xmlText(xml: string, name: string): string | null {
  const el = xmlElements(xml, name)[0];
  if (el === undefined) return null;
  const cdata = /^\s*<!\[CDATA\[([\s\S]*?)\]\]>\s*$/.exec(el);
  return cdata ? (cdata[1] ?? '') : decodeXml(el).trim();
}

// --- HTTP -------------------------------------------------------------------------------------

interface Answer {
  status: number;
  body: string;
  localAddress: string;
}

function request(url: string, timeoutMs: number, post?: { action: string; body: string }): Promise<Answer> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return Promise.reject(new MsgError({ key: 'stunUpnpBadAnswer', vars: { detail: `not a URL: ${url}` } }));
  }
  if (u.protocol !== 'http:') return Promise.reject(new MsgError({ key: 'stunUpnpBadAnswer', vars: { detail: `not an http:// URL: ${url}` } }));
  const server = u.host;
  return new Promise((resolve, reject) => {
    const body = post ? Buffer.from(post.body) : undefined;
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      req.destroy();
      reject(new MsgError({ key: 'stunConnectFailed', vars: { server, detail: err instanceof MsgError ? err.msg : err.message } }));
    };
    const timedOut = () => fail(new MsgError({ key: 'stunTimeout', vars: { seconds: timeoutMs / 1000 } }));
    const req = http.request(
      u,
      {
        method: post ? 'POST' : 'GET',
        timeout: timeoutMs,
        // One exchange per connection: routers' small HTTP servers often mishandle keep-alive.
        agent: false,
        headers: post
          ? { 'Content-Type': 'text/xml; charset="utf-8"', SOAPAction: `"${post.action}"`, 'Content-Length': body!.length, Connection: 'close' }
          : { Connection: 'close' },
      },
      (res) => {
        // Read now: with Connection: close the socket may be gone by the end of the body.
        const localAddress = (res.socket?.localAddress ?? '').replace(/^::ffff:/, '');
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_BODY) fail(new Error(`answer larger than ${MAX_BODY} bytes`));
          else chunks.push(c);
        });
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(deadline);
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), localAddress });
        });
        res.on('error', fail);
        res.on('close', () => fail(new Error('connection closed before the end of the answer')));
      },
    );
    // `timeout` only bounds idle time; this bounds the whole exchange.
    const deadline = setTimeout(timedOut, timeoutMs);
    req.on('timeout', timedOut);
    req.on('error', fail);
    req.end(body);
  });
}

// --- discovery --------------------------------------------------------------------------------

/** The LOCATION of the first IGD that answers an M-SEARCH, or null after timeoutMs. */
function discover(localAddress: string | undefined, timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    const sock = dgram.createSocket({ type: 'udp4', reuseAddr: false });
    let finished = false;
    const timers: NodeJS.Timeout[] = [];
    const finish = (loc: string | null) => {
      if (finished) return;
      finished = true;
      for (const t of timers) clearTimeout(t);
      try {
        sock.close();
      } catch {
        // already closed
      }
      resolve(loc);
    };
    sock.on('error', () => finish(null));
    sock.on('message', (m) => {
      const text = m.toString('latin1');
      if (!/^HTTP\/1\.[01] 200/i.test(text)) return;
      const st = /^(?:ST|NT):\s*(.+?)\s*$/im.exec(text)?.[1] ?? '';
      const loc = /^LOCATION:\s*(.+?)\s*$/im.exec(text)?.[1];
      if (loc && /^http:\/\//i.test(loc) && SEARCH_TARGETS.includes(st)) finish(loc);
    });
    sock.bind(0, localAddress, () => {
      try {
        // Without it the kernel picks the interface by route; with it nothing leaves elsewhere.
        if (localAddress) sock.setMulticastInterface(localAddress);
        sock.setMulticastTTL(2);
      } catch {
        finish(null);
        return;
      }
      const mx = Math.max(1, Math.min(5, Math.floor(timeoutMs / 1000)));
      const search = () => {
        for (const st of SEARCH_TARGETS) {
          const msg = `M-SEARCH * HTTP/1.1\r\nHOST: ${SSDP_ADDR}:${SSDP_PORT}\r\nMAN: "ssdp:discover"\r\nMX: ${mx}\r\nST: ${st}\r\n\r\n`;
          sock.send(msg, SSDP_PORT, SSDP_ADDR, () => {});
        }
      };
      // UDP can lose the first round; a second one halfway costs nothing.
      search();
      timers.push(setTimeout(search, Math.floor(timeoutMs / 2)));
      timers.push(setTimeout(() => finish(null), timeoutMs));
    });
  });
}

/** The WAN connection service of a device description (the first of SERVICE_TYPES it has). */
export function findService(xml: string, location: string): { type: string; controlUrl: string } | null {
  const base = xmlText(xml, 'URLBase') || location;
  const services = xmlElements(xml, 'service').map((s) => ({ type: xmlText(s, 'serviceType') ?? '', control: xmlText(s, 'controlURL') ?? '' }));
  for (const type of SERVICE_TYPES) {
    const s = services.find((x) => x.type === type && x.control !== '');
    if (!s) continue;
    try {
      return { type, controlUrl: new URL(s.control, base).href };
    } catch {
      continue;
    }
  }
  return null;
}

/** A UPnPError answer: the router understood and said no. */
export class UpnpFault extends MsgError {
  constructor(
    readonly code: number,
    readonly text: string,
  ) {
    super({ key: 'stunUpnpRefused', vars: { code, text } });
  }
}

// --- the mapper -------------------------------------------------------------------------------

export function upnpMapper(o: UpnpOptions = {}): PortMapper {
  const timeoutMs = o.timeoutMs ?? 3000;
  let service: Service | null = null;
  let closed = false;

  const find = async (): Promise<Service> => {
    if (service) return service;
    const location = o.gatewayUrl || (await discover(o.localAddress, timeoutMs));
    if (!location) throw new MsgError({ key: 'stunUpnpNoGateway', vars: { seconds: timeoutMs / 1000 } });
    const desc = await request(location, timeoutMs);
    if (desc.status !== 200) throw new MsgError({ key: 'stunUpnpHttp', vars: { status: desc.status } });
    const found = findService(desc.body, location);
    if (!found) throw new MsgError({ key: 'stunUpnpNoService', vars: { gateway: location } });
    const s = { location, type: found.type, controlUrl: found.controlUrl, localAddress: o.localAddress || desc.localAddress };
    if (!closed) service = s;
    return s;
  };

  const soap = async (action: string, args: [string, string | number][]): Promise<string> => {
    const s = await find();
    const inner = args.map(([k, v]) => `<${k}>${escapeXml(String(v))}</${k}>`).join('');
    const body =
      '<?xml version="1.0"?>\r\n' +
      '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" s:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/">' +
      `<s:Body><u:${action} xmlns:u="${s.type}">${inner}</u:${action}></s:Body></s:Envelope>\r\n`;
    let ans: Answer;
    try {
      ans = await request(s.controlUrl, timeoutMs, { action: `${s.type}#${action}`, body });
    } catch (err) {
      // The router may have rebooted onto another port or address: find it again next time.
      service = null;
      throw err;
    }
    if (ans.status === 200) {
      const res = xmlElements(ans.body, `${action}Response`)[0];
      if (res === undefined) throw new MsgError({ key: 'stunUpnpBadAnswer', vars: { detail: `no ${action}Response` } });
      return res;
    }
    const fault = xmlElements(ans.body, 'UPnPError')[0];
    const codeText = fault !== undefined ? xmlText(fault, 'errorCode') : null;
    const code = codeText ? Number(codeText) : NaN;
    if (Number.isInteger(code)) throw new UpnpFault(code, xmlText(fault!, 'errorDescription') ?? '');
    throw new MsgError({ key: 'stunUpnpHttp', vars: { status: ans.status } });
  };

  const proto = (p: 'udp' | 'tcp') => p.toUpperCase();

  return {
    kind: 'upnp',
    async map(req: MapRequest): Promise<MapResult> {
      const s = await find();
      const add = (lease: number) =>
        soap('AddPortMapping', [
          ['NewRemoteHost', ''],
          ['NewExternalPort', req.externalPort],
          ['NewProtocol', proto(req.protocol)],
          ['NewInternalPort', req.internalPort],
          ['NewInternalClient', s.localAddress],
          ['NewEnabled', 1],
          ['NewPortMappingDescription', req.description],
          ['NewLeaseDuration', lease],
        ]);
      let lease = req.lifetimeSec;
      try {
        await add(lease);
      } catch (err) {
        if (!(err instanceof UpnpFault) || err.code !== ONLY_PERMANENT_LEASES || lease === 0) throw err;
        lease = 0;
        await add(lease);
      }
      return { gateway: s.location, externalPort: req.externalPort, lifetimeSec: lease };
    },
    async unmap(req) {
      await soap('DeletePortMapping', [
        ['NewRemoteHost', ''],
        ['NewExternalPort', req.externalPort],
        ['NewProtocol', proto(req.protocol)],
      ]);
    },
    async externalAddress() {
      const res = await soap('GetExternalIPAddress', []);
      const addr = xmlText(res, 'NewExternalIPAddress');
      if (!addr) throw new MsgError({ key: 'stunUpnpBadAnswer', vars: { detail: 'no NewExternalIPAddress' } });
      return addr;
    },
    close() {
      closed = true;
      service = null;
    },
  };
}
