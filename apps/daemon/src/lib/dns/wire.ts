/**
 * Just enough of the DNS wire format (RFC 1035) for DDNS and ACME: queries (the resolver check,
 * reading a record from an RFC 2136 server) and UPDATE messages (RFC 2136) signed with TSIG (RFC 8945).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { isIPv4, isIPv6 } from '@lucky/contracts';
import { ipBytes, ipText } from '../ip.js';
import { MsgError } from '../msgerror.js';

export const TYPE = { A: 1, SOA: 6, PTR: 12, TXT: 16, AAAA: 28, SRV: 33, HTTPS: 65, TSIG: 250, ANY: 255 } as const;
const CLASS_IN = 1;
const CLASS_NONE = 254;
const CLASS_ANY = 255;
const OPCODE_UPDATE = 5;
export const RCODES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED', 'YXDOMAIN', 'YXRRSET', 'NXRRSET', 'NOTAUTH', 'NOTZONE'];
const TSIG_ERRORS: Record<number, string> = { 16: 'BADSIG', 17: 'BADKEY', 18: 'BADTIME', 22: 'BADTRUNC' };

export type TsigAlgorithm = 'hmac-sha256' | 'hmac-sha512' | 'hmac-sha1';
export interface TsigKey {
  name: string;
  algorithm: TsigAlgorithm;
  /** The shared secret, base64 as in named.conf. */
  secret: string;
}

export function encodeName(name: string): Buffer {
  const n = name.replace(/\.$/, '');
  const parts: Buffer[] = [];
  if (n !== '') {
    for (const label of n.split('.')) {
      const b = Buffer.from(label, 'ascii');
      if (b.length === 0 || b.length > 63) throw new MsgError({ key: 'dnsBadName', vars: { name } });
      parts.push(Buffer.from([b.length]), b);
    }
  }
  parts.push(Buffer.from([0]));
  const out = Buffer.concat(parts);
  if (out.length > 255) throw new MsgError({ key: 'dnsBadName', vars: { name } });
  return out;
}

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}
function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}
function u48(n: number): Buffer {
  const b = Buffer.alloc(6);
  b.writeUIntBE(n, 0, 6);
  return b;
}

function rr(name: string, type: number, cls: number, ttl: number, rdata: Buffer): Buffer {
  return Buffer.concat([encodeName(name), u16(type), u16(cls), u32(ttl), u16(rdata.length), rdata]);
}

export function ipRdata(ip: string): Buffer {
  const b = ipBytes(ip);
  if (!b || (b.length !== 4 && b.length !== 16)) throw new MsgError({ key: 'dnsNotAnAddress', vars: { value: ip } });
  return Buffer.from(b);
}

function header(id: number, flags: number, counts: [number, number, number, number]): Buffer {
  return Buffer.concat([u16(id), u16(flags), ...counts.map(u16)]);
}

export function buildQuery(name: string, type: number, id = randomBytes(2).readUInt16BE(), recursion = true): Buffer {
  return Buffer.concat([header(id, recursion ? 0x0100 : 0, [1, 0, 0, 0]), encodeName(name), u16(type), u16(CLASS_IN)]);
}

/** TXT RDATA: the text as character-strings of at most 255 bytes each. */
export function txtRdata(text: string): Buffer {
  const b = Buffer.from(text, 'utf8');
  const parts: Buffer[] = [];
  for (let i = 0; i < b.length || i === 0; i += 255) {
    const chunk = b.subarray(i, i + 255);
    parts.push(Buffer.from([chunk.length]), chunk);
  }
  return Buffer.concat(parts);
}

/** The text of TXT RDATA (its character-strings joined). */
export function txtText(data: Buffer): string {
  const parts: Buffer[] = [];
  for (let pos = 0; pos < data.length; ) {
    const len = data[pos]!;
    parts.push(data.subarray(pos + 1, pos + 1 + len));
    pos += 1 + len;
  }
  return Buffer.concat(parts).toString('utf8');
}

export interface UpdateSpec {
  zone: string;
  name: string;
  type: number;
  ttl: number;
  /** New data; the RRset of name/type is replaced by exactly these (none: the RRset is deleted). */
  ips: string[];
  /** TXT records instead of addresses. */
  texts?: string[];
  /** Other records, their RDATA already encoded (svcrdata.ts: SRV, HTTPS). */
  rdata?: Buffer[];
}

/** An UPDATE that deletes the name's RRset of the type and adds the new records, in one transaction. */
export function buildUpdate(u: UpdateSpec, id = randomBytes(2).readUInt16BE()): Buffer {
  const data = u.rdata ?? (u.texts ? u.texts.map(txtRdata) : u.ips.map(ipRdata));
  const updates = [rr(u.name, u.type, CLASS_ANY, 0, Buffer.alloc(0)), ...data.map((d) => rr(u.name, u.type, CLASS_IN, u.ttl, d))];
  return updateMessage(u.zone, updates, id);
}

/** An UPDATE that deletes only the name's TXT records holding these texts (RFC 2136 2.5.4); the rest of the set stays. */
export function buildTextRemoval(zone: string, name: string, texts: string[], id = randomBytes(2).readUInt16BE()): Buffer {
  return updateMessage(zone, texts.map((t) => rr(name, TYPE.TXT, CLASS_NONE, 0, txtRdata(t))), id);
}

function updateMessage(zone: string, updates: Buffer[], id: number): Buffer {
  return Buffer.concat([header(id, OPCODE_UPDATE << 11, [1, 0, updates.length, 0]), encodeName(zone), u16(TYPE.SOA), u16(CLASS_IN), ...updates]);
}
export { CLASS_NONE };

const HASH: Record<TsigAlgorithm, string> = { 'hmac-sha256': 'sha256', 'hmac-sha512': 'sha512', 'hmac-sha1': 'sha1' };

function tsigVariables(key: TsigKey, timeSigned: number, fudge: number, error: number, other: Buffer): Buffer {
  return Buffer.concat([
    encodeName(key.name.toLowerCase()),
    u16(CLASS_ANY),
    u32(0),
    encodeName(key.algorithm),
    u48(timeSigned),
    u16(fudge),
    u16(error),
    u16(other.length),
    other,
  ]);
}

/** Appends a TSIG record to a message; returns the signed message and the MAC (for checking the answer). */
export function signTsig(msg: Buffer, key: TsigKey, now = Math.floor(Date.now() / 1000), fudge = 300): { signed: Buffer; mac: Buffer } {
  const mac = createHmac(HASH[key.algorithm], Buffer.from(key.secret, 'base64'))
    .update(msg)
    .update(tsigVariables(key, now, fudge, 0, Buffer.alloc(0)))
    .digest();
  const rdata = Buffer.concat([encodeName(key.algorithm), u48(now), u16(fudge), u16(mac.length), mac, msg.subarray(0, 2), u16(0), u16(0)]);
  const out = Buffer.concat([msg, rr(key.name.toLowerCase(), TYPE.TSIG, CLASS_ANY, 0, rdata)]);
  out.writeUInt16BE(msg.readUInt16BE(10) + 1, 10); // ARCOUNT
  return { signed: out, mac };
}

export interface ParsedRR {
  name: string;
  type: number;
  cls: number;
  ttl: number;
  data: Buffer;
  /** Offset of the record in the message. */
  start: number;
  /** For A/AAAA: the address as text. */
  ip?: string;
}

export interface ParsedMessage {
  id: number;
  flags: number;
  rcode: number;
  answers: ParsedRR[];
  additional: ParsedRR[];
}

export function readName(buf: Buffer, offset: number): { name: string; next: number } {
  const labels: string[] = [];
  let pos = offset;
  let next = -1;
  for (let jumps = 0; jumps < 64; jumps++) {
    const len = buf[pos];
    if (len === undefined) throw new MsgError({ key: 'dnsMalformed' });
    if ((len & 0xc0) === 0xc0) {
      if (next === -1) next = pos + 2;
      pos = ((len & 0x3f) << 8) | buf[pos + 1]!;
      continue;
    }
    if (len === 0) return { name: labels.join('.'), next: next === -1 ? pos + 1 : next };
    labels.push(buf.toString('ascii', pos + 1, pos + 1 + len));
    pos += 1 + len;
  }
  throw new MsgError({ key: 'dnsMalformed' });
}

/** One text form per address, so answers compare with what a source returned. */
export function normalizeIp(ip: string): string {
  if (isIPv4(ip)) return ip;
  if (!isIPv6(ip)) return ip;
  const b = ipBytes(ip);
  if (!b) return ip;
  return ipText(b);
}

export function parseMessage(buf: Buffer): ParsedMessage {
  if (buf.length < 12) throw new MsgError({ key: 'dnsMalformed' });
  const id = buf.readUInt16BE(0);
  const flags = buf.readUInt16BE(2);
  const [qd, an, ns, ar] = [4, 6, 8, 10].map((o) => buf.readUInt16BE(o)) as [number, number, number, number];
  let pos = 12;
  for (let i = 0; i < qd; i++) pos = readName(buf, pos).next + 4;
  const section = (count: number): ParsedRR[] => {
    const out: ParsedRR[] = [];
    for (let i = 0; i < count; i++) {
      const start = pos;
      const { name, next } = readName(buf, pos);
      const type = buf.readUInt16BE(next);
      const cls = buf.readUInt16BE(next + 2);
      const ttl = buf.readUInt32BE(next + 4);
      const len = buf.readUInt16BE(next + 8);
      const data = buf.subarray(next + 10, next + 10 + len);
      if (data.length !== len) throw new MsgError({ key: 'dnsMalformed' });
      pos = next + 10 + len;
      const r: ParsedRR = { name, type, cls, ttl, data, start };
      if (type === TYPE.A || type === TYPE.AAAA) {
        const t = data.length === 4 || data.length === 16 ? ipText(data) : undefined;
        if (t) r.ip = t;
      }
      out.push(r);
    }
    return out;
  };
  const answers = section(an);
  section(ns);
  const additional = section(ar);
  return { id, flags, rcode: flags & 0x0f, answers, additional };
}

/** Checks the TSIG of an answer to a signed request (RFC 8945 4.3.3). */
export function verifyTsigAnswer(buf: Buffer, msg: ParsedMessage, key: TsigKey, requestMac: Buffer): void {
  const tsig = msg.additional[msg.additional.length - 1];
  if (!tsig || tsig.type !== TYPE.TSIG) throw new MsgError({ key: 'dnsTsigUnsigned' });
  const d = tsig.data;
  const alg = readName(d, 0);
  const time = d.readUIntBE(alg.next, 6);
  const fudge = d.readUInt16BE(alg.next + 6);
  const macLen = d.readUInt16BE(alg.next + 8);
  const mac = d.subarray(alg.next + 10, alg.next + 10 + macLen);
  let p = alg.next + 10 + macLen;
  const origId = d.readUInt16BE(p);
  const error = d.readUInt16BE(p + 2);
  const otherLen = d.readUInt16BE(p + 4);
  const other = d.subarray(p + 6, p + 6 + otherLen);
  if (error) throw new MsgError({ key: 'dnsTsigError', vars: { code: TSIG_ERRORS[error] ?? error } });
  const unsigned = Buffer.from(buf.subarray(0, tsig.start));
  unsigned.writeUInt16BE(origId, 0);
  unsigned.writeUInt16BE(unsigned.readUInt16BE(10) - 1, 10);
  const expect = createHmac(HASH[key.algorithm], Buffer.from(key.secret, 'base64'))
    .update(u16(requestMac.length))
    .update(requestMac)
    .update(unsigned)
    .update(tsigVariables(key, time, fudge, error, other))
    .digest();
  if (!expect.equals(mac)) throw new MsgError({ key: 'dnsTsigMismatch' });
}

/** Sends one message over UDP and waits for the answer with the same id; retries once. */
export function exchange(server: { host: string; port: number }, msg: Buffer, timeoutMs: number): Promise<Buffer> {
  const id = msg.readUInt16BE(0);
  return new Promise((resolve, reject) => {
    const sock = createSocket(isIPv6(server.host) ? 'udp6' : 'udp4');
    let tries = 0;
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const finish = (err: Error | null, buf?: Buffer) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.close();
      if (err) reject(err);
      else resolve(buf!);
    };
    const send = () => {
      if (done) return;
      tries++;
      sock.send(msg, server.port, server.host, (err) => err && finish(err));
      timer = setTimeout(() => (tries < 2 ? send() : finish(new MsgError({ key: 'dnsServerSilent', vars: { server: `${server.host}:${server.port}` } }))), timeoutMs / 2);
    };
    sock.on('error', (err) => finish(err));
    sock.on('message', (buf) => {
      if (buf.length >= 2 && buf.readUInt16BE(0) === id) finish(null, buf);
    });
    send();
  });
}

/**
 * The TXT texts a server answers for `name`. NXDOMAIN and NODATA answer []. `recursion` false asks
 * an authoritative server for what it holds itself.
 */
export async function queryTexts(server: { host: string; port: number }, name: string, timeoutMs: number, recursion = true): Promise<string[]> {
  const answer = parseMessage(await exchange(server, buildQuery(name, TYPE.TXT, undefined, recursion), timeoutMs));
  if (answer.rcode !== 0 && answer.rcode !== 3) throw new MsgError({ key: 'dnsRcode', vars: { rcode: RCODES[answer.rcode] ?? answer.rcode, server: server.host } });
  return answer.answers.filter((r) => r.type === TYPE.TXT).map((r) => txtText(r.data));
}

/** The RDATA of the `type` records a server answers for `name` (SRV, HTTPS: svcrdata.ts reads them). NXDOMAIN and NODATA answer []. */
export async function queryRdata(server: { host: string; port: number }, name: string, type: number, timeoutMs: number): Promise<Buffer[]> {
  const answer = parseMessage(await exchange(server, buildQuery(name, type), timeoutMs));
  if (answer.rcode !== 0 && answer.rcode !== 3) throw new MsgError({ key: 'dnsRcode', vars: { rcode: RCODES[answer.rcode] ?? answer.rcode, server: server.host } });
  return answer.answers.filter((r) => r.type === type).map((r) => r.data);
}

/** The addresses of `type` a server answers for `name`. NXDOMAIN and NODATA answer []. */
export async function queryAddresses(server: { host: string; port: number }, name: string, type: 'A' | 'AAAA', timeoutMs: number): Promise<string[]> {
  const t = TYPE[type];
  const answer = parseMessage(await exchange(server, buildQuery(name, t), timeoutMs));
  if (answer.rcode !== 0 && answer.rcode !== 3) throw new MsgError({ key: 'dnsRcode', vars: { rcode: RCODES[answer.rcode] ?? answer.rcode, server: server.host } });
  return answer.answers.filter((r) => r.type === t && r.ip).map((r) => r.ip!);
}
