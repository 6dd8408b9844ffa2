/**
 * SRV (RFC 2782) and HTTPS (RFC 9460) records between their zone-file form and their RDATA: what a
 * service on a port of its own publishes beside its address. HTTPS takes the parameters a client
 * needs to reach a port (`alpn`, `port`, `ipv4hint`, `ipv6hint`); another is refused, not dropped.
 *
 *   SRV   `priority weight port target`      `0 0 8443 ha.example.com.`
 *   HTTPS `priority target key=value...`     `1 . alpn=h2,http/1.1 port=8443`
 */
import { MsgError } from '../msgerror.js';
import { ipBytes, ipText } from '../ip.js';
import { encodeName, readName } from './wire.js';

const KEYS = { alpn: 1, port: 3, ipv4hint: 4, ipv6hint: 6 } as const;
type Key = keyof typeof KEYS;

const bad = (type: string, value: string) => new MsgError({ key: 'dnsBadRecord', vars: { type, value } });

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}

const isU16 = (s: string | undefined) => s !== undefined && /^\d{1,5}$/.test(s) && Number(s) <= 65535;

export function srvRdata(value: string): Buffer {
  const [prio, weight, port, target, ...rest] = value.trim().split(/\s+/);
  if (!isU16(prio) || !isU16(weight) || !isU16(port) || !target || rest.length) throw bad('SRV', value);
  return Buffer.concat([u16(Number(prio)), u16(Number(weight)), u16(Number(port)), encodeName(target)]);
}

export function srvText(data: Buffer): string {
  if (data.length < 7) throw new MsgError({ key: 'dnsMalformed' });
  const { name } = readName(data, 6);
  return `${data.readUInt16BE(0)} ${data.readUInt16BE(2)} ${data.readUInt16BE(4)} ${name === '' ? '.' : `${name}.`}`;
}

function paramValue(key: Key, text: string, value: string): Buffer {
  switch (key) {
    case 'alpn': {
      const ids = text.split(',').map((a) => Buffer.from(a, 'ascii'));
      if (ids.some((b) => b.length === 0 || b.length > 255)) throw bad('HTTPS', value);
      return Buffer.concat(ids.flatMap((b) => [Buffer.from([b.length]), b]));
    }
    case 'port':
      if (!isU16(text)) throw bad('HTTPS', value);
      return u16(Number(text));
    case 'ipv4hint':
    case 'ipv6hint': {
      const want = key === 'ipv4hint' ? 4 : 16;
      const ips = text.split(',').map((ip) => ipBytes(ip));
      if (ips.some((b) => !b || b.length !== want)) throw bad('HTTPS', value);
      return Buffer.concat(ips.map((b) => Buffer.from(b!)));
    }
  }
}

export function httpsRdata(value: string): Buffer {
  const [prio, target, ...params] = value.trim().split(/\s+/);
  if (!isU16(prio) || !target) throw bad('HTTPS', value);
  const pairs = params.map((p) => {
    const i = p.indexOf('=');
    const key = p.slice(0, i) as Key;
    if (i < 1 || !(key in KEYS)) throw bad('HTTPS', value);
    return { id: KEYS[key], data: paramValue(key, p.slice(i + 1), value) };
  });
  // Parameters go in increasing key order, each once (RFC 9460 2.2).
  pairs.sort((a, b) => a.id - b.id);
  if (pairs.some((p, i) => i > 0 && pairs[i - 1]!.id === p.id)) throw bad('HTTPS', value);
  return Buffer.concat([u16(Number(prio)), encodeName(target), ...pairs.flatMap((p) => [u16(p.id), u16(p.data.length), p.data])]);
}

export function httpsText(data: Buffer): string {
  if (data.length < 3) throw new MsgError({ key: 'dnsMalformed' });
  const { name, next } = readName(data, 2);
  const out = [String(data.readUInt16BE(0)), name === '' ? '.' : `${name}.`];
  for (let pos = next; pos < data.length; ) {
    if (pos + 4 > data.length) throw new MsgError({ key: 'dnsMalformed' });
    const id = data.readUInt16BE(pos);
    const len = data.readUInt16BE(pos + 2);
    const v = data.subarray(pos + 4, pos + 4 + len);
    if (v.length !== len) throw new MsgError({ key: 'dnsMalformed' });
    pos += 4 + len;
    const key = (Object.keys(KEYS) as Key[]).find((k) => KEYS[k] === id);
    if (key === 'port' && len === 2) out.push(`port=${v.readUInt16BE(0)}`);
    else if (key === 'alpn') {
      const ids: string[] = [];
      for (let i = 0; i < v.length; i += 1 + v[i]!) ids.push(v.subarray(i + 1, i + 1 + v[i]!).toString('ascii'));
      out.push(`alpn=${ids.join(',')}`);
    } else if ((key === 'ipv4hint' && len % 4 === 0) || (key === 'ipv6hint' && len % 16 === 0)) {
      const size = key === 'ipv4hint' ? 4 : 16;
      const ips: string[] = [];
      for (let i = 0; i < len; i += size) ips.push(ipText(v.subarray(i, i + size)));
      out.push(`${key}=${ips.join(',')}`);
    } else out.push(`key${id}=${v.toString('hex')}`);
  }
  return out.join(' ');
}

/** The RDATA of an SRV or HTTPS value. */
export function portRecordRdata(type: 'SRV' | 'HTTPS', value: string): Buffer {
  return type === 'SRV' ? srvRdata(value) : httpsRdata(value);
}

/** The zone-file form of SRV or HTTPS RDATA. */
export function portRecordText(type: 'SRV' | 'HTTPS', data: Buffer): string {
  return type === 'SRV' ? srvText(data) : httpsText(data);
}
