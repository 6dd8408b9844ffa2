/**
 * The STUN wire format (RFC 8489, which keeps RFC 5389's layout), with the RFC 5780 attributes the
 * NAT behaviour test needs and the RFC 3489 address attributes older public servers still send.
 * Only Binding is used here, but the codec reads any method so that a shared socket can tell STUN
 * from everything else.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { ipBytes, ipText } from '../../lib/ip.js';
import { MsgError } from '../../lib/msgerror.js';

export const STUN_MAGIC_COOKIE = 0x2112a442;
export const STUN_HEADER_LENGTH = 20;
export const STUN_METHOD_BINDING = 0x001;
const FINGERPRINT_XOR = 0x5354554e;
// Far above any real Binding answer; it bounds what a TCP reader is willing to buffer.
export const STUN_MAX_MESSAGE = 4096;

export const STUN_ATTR = {
  MAPPED_ADDRESS: 0x0001,
  CHANGE_REQUEST: 0x0003,
  SOURCE_ADDRESS: 0x0004,
  CHANGED_ADDRESS: 0x0005,
  USERNAME: 0x0006,
  MESSAGE_INTEGRITY: 0x0008,
  ERROR_CODE: 0x0009,
  XOR_MAPPED_ADDRESS: 0x0020,
  SOFTWARE: 0x8022,
  FINGERPRINT: 0x8028,
  RESPONSE_ORIGIN: 0x802b,
  OTHER_ADDRESS: 0x802c,
} as const;

export type StunClass = 'request' | 'indication' | 'success' | 'error';
const CLASS_BITS: Record<StunClass, number> = { request: 0, indication: 1, success: 2, error: 3 };
const CLASSES: StunClass[] = ['request', 'indication', 'success', 'error'];

export interface StunAddress {
  address: string;
  port: number;
}

/** The attributes this codec understands, by meaning. */
export interface StunAttrs {
  mappedAddress?: StunAddress;
  xorMappedAddress?: StunAddress;
  errorCode?: { code: number; reason: string };
  software?: string;
  username?: string;
  changeRequest?: { changeIp: boolean; changePort: boolean };
  responseOrigin?: StunAddress;
  otherAddress?: StunAddress;
  /** RFC 3489's names for RESPONSE-ORIGIN and OTHER-ADDRESS. */
  sourceAddress?: StunAddress;
  changedAddress?: StunAddress;
}

export interface StunRawAttribute {
  type: number;
  value: Buffer;
}

export interface StunMessage {
  method: number;
  cls: StunClass;
  transactionId: Buffer;
  attrs: StunAttrs;
  /** Every attribute before MESSAGE-INTEGRITY, in order, known or not. */
  raw: StunRawAttribute[];
  /** Comprehension-required types (below 0x8000) this codec does not know. */
  unknownRequired: number[];
  /** Where MESSAGE-INTEGRITY starts in the buffer, for verifyIntegrity; null when absent. */
  integrityAt: number | null;
  /** A FINGERPRINT was present (and matched: a wrong one fails the decode). */
  fingerprint: boolean;
}

/** Anything wrong with a datagram that claims to be STUN; detail is technical text, never shown alone. */
export class StunParseError extends MsgError {
  constructor(readonly detail: string) {
    super({ key: 'stunBadAnswer', vars: { detail } });
  }
}

export function newTransactionId(): Buffer {
  return randomBytes(12);
}

function messageType(method: number, cls: StunClass): number {
  const c = CLASS_BITS[cls];
  // The class bits are interleaved with the method bits (RFC 8489 section 5).
  return (method & 0x000f) | ((method & 0x0070) << 1) | ((method & 0x0f80) << 2) | ((c & 1) << 4) | ((c & 2) << 7);
}

/**
 * Cheap test for demultiplexing a socket that also carries other traffic: the first two bits are
 * zero, the magic cookie is there, and the length field is a multiple of 4 that matches the datagram.
 */
export function isStunPacket(buf: Uint8Array): boolean {
  if (buf.length < STUN_HEADER_LENGTH) return false;
  if ((buf[0]! & 0xc0) !== 0) return false;
  const len = (buf[2]! << 8) | buf[3]!;
  if (len % 4 !== 0 || STUN_HEADER_LENGTH + len !== buf.length) return false;
  return buf[4] === 0x21 && buf[5] === 0x12 && buf[6] === 0xa4 && buf[7] === 0x42;
}

/**
 * The whole message length announced by a header (for stream framing), or null when the first 20
 * bytes cannot start a STUN message.
 */
export function stunFrameLength(head: Buffer): number | null {
  if (head.length < STUN_HEADER_LENGTH) return null;
  if ((head[0]! & 0xc0) !== 0 || head.readUInt32BE(4) !== STUN_MAGIC_COOKIE) return null;
  const len = head.readUInt16BE(2);
  if (len % 4 !== 0 || STUN_HEADER_LENGTH + len > STUN_MAX_MESSAGE) return null;
  return STUN_HEADER_LENGTH + len;
}

function readAddress(type: number, v: Buffer, xorWith: Buffer | null): StunAddress {
  if (v.length < 4) throw new StunParseError(`attribute 0x${type.toString(16)}: too short`);
  const family = v[1];
  const need = family === 1 ? 8 : family === 2 ? 20 : 0;
  if (need === 0) throw new StunParseError(`attribute 0x${type.toString(16)}: unknown address family ${family}`);
  if (v.length !== need) throw new StunParseError(`attribute 0x${type.toString(16)}: ${v.length} bytes for family ${family}`);
  let port = v.readUInt16BE(2);
  const addr = Buffer.from(v.subarray(4));
  if (xorWith) {
    port ^= STUN_MAGIC_COOKIE >>> 16;
    for (let i = 0; i < addr.length; i++) addr[i] = addr[i]! ^ xorWith[i]!;
  }
  return { address: ipText(addr), port };
}

function writeAddress(a: StunAddress, xorWith: Buffer | null): Buffer {
  const bytes = ipBytes(a.address);
  if (!bytes) throw new Error(`not an IP address: ${a.address}`);
  // ipBytes folds ::ffff:a.b.c.d into IPv4, which is what a STUN peer would want to see.
  const out = Buffer.alloc(4 + bytes.length);
  out[1] = bytes.length === 4 ? 1 : 2;
  out.writeUInt16BE(xorWith ? a.port ^ (STUN_MAGIC_COOKIE >>> 16) : a.port, 2);
  for (let i = 0; i < bytes.length; i++) out[4 + i] = xorWith ? bytes[i]! ^ xorWith[i]! : bytes[i]!;
  return out;
}

/** Cookie then transaction id: what XOR-MAPPED-ADDRESS is masked with. */
function xorMask(transactionId: Buffer): Buffer {
  const m = Buffer.alloc(16);
  m.writeUInt32BE(STUN_MAGIC_COOKIE, 0);
  transactionId.copy(m, 4);
  return m;
}

function text(v: Buffer, max: number, type: number): string {
  // RFC 8489 caps SOFTWARE and USERNAME at 763/513 bytes; more than that is not a real peer.
  if (v.length > max) throw new StunParseError(`attribute 0x${type.toString(16)}: ${v.length} bytes`);
  return v.toString('utf8');
}

/** Reads one STUN message that fills `buf` exactly. Throws StunParseError and nothing else. */
export function decodeStun(buf: Buffer): StunMessage {
  if (buf.length < STUN_HEADER_LENGTH) throw new StunParseError(`${buf.length} bytes, shorter than a header`);
  const type = buf.readUInt16BE(0);
  if ((type & 0xc000) !== 0) throw new StunParseError('not a STUN message');
  if (buf.readUInt32BE(4) !== STUN_MAGIC_COOKIE) throw new StunParseError('no magic cookie');
  const length = buf.readUInt16BE(2);
  if (length % 4 !== 0) throw new StunParseError(`length ${length} is not a multiple of 4`);
  if (STUN_HEADER_LENGTH + length !== buf.length) throw new StunParseError(`length ${length} does not match the ${buf.length} bytes received`);
  const transactionId = Buffer.from(buf.subarray(8, 20));
  const mask = xorMask(transactionId);
  const msg: StunMessage = {
    method: (type & 0x000f) | ((type >> 1) & 0x0070) | ((type >> 2) & 0x0f80),
    cls: CLASSES[((type >> 4) & 1) | ((type >> 7) & 2)]!,
    transactionId,
    attrs: {},
    raw: [],
    unknownRequired: [],
    integrityAt: null,
    fingerprint: false,
  };
  const a = msg.attrs;
  let pos = STUN_HEADER_LENGTH;
  while (pos < buf.length) {
    if (msg.fingerprint) throw new StunParseError('attributes after FINGERPRINT');
    if (pos + 4 > buf.length) throw new StunParseError('truncated attribute header');
    const at = buf.readUInt16BE(pos);
    const len = buf.readUInt16BE(pos + 2);
    const start = pos + 4;
    if (start + len > buf.length) throw new StunParseError(`attribute 0x${at.toString(16)} overruns the message`);
    const v = buf.subarray(start, start + len);
    const next = start + ((len + 3) & ~3);
    if (at === STUN_ATTR.FINGERPRINT) {
      if (len !== 4) throw new StunParseError('FINGERPRINT of the wrong size');
      if (((crc32(buf.subarray(0, pos)) ^ FINGERPRINT_XOR) >>> 0) !== v.readUInt32BE(0)) throw new StunParseError('FINGERPRINT does not match');
      msg.fingerprint = true;
    } else if (msg.integrityAt !== null) {
      // RFC 8489 14.5: only FINGERPRINT may follow MESSAGE-INTEGRITY; anything else is not covered by it.
    } else if (at === STUN_ATTR.MESSAGE_INTEGRITY) {
      if (len !== 20) throw new StunParseError('MESSAGE-INTEGRITY of the wrong size');
      msg.integrityAt = pos;
    } else {
      msg.raw.push({ type: at, value: Buffer.from(v) });
      // The first of a repeated attribute counts (RFC 8489 14).
      switch (at) {
        case STUN_ATTR.MAPPED_ADDRESS:
          a.mappedAddress ??= readAddress(at, v, null);
          break;
        case STUN_ATTR.XOR_MAPPED_ADDRESS:
          a.xorMappedAddress ??= readAddress(at, v, mask);
          break;
        case STUN_ATTR.RESPONSE_ORIGIN:
          a.responseOrigin ??= readAddress(at, v, null);
          break;
        case STUN_ATTR.OTHER_ADDRESS:
          a.otherAddress ??= readAddress(at, v, null);
          break;
        case STUN_ATTR.SOURCE_ADDRESS:
          a.sourceAddress ??= readAddress(at, v, null);
          break;
        case STUN_ATTR.CHANGED_ADDRESS:
          a.changedAddress ??= readAddress(at, v, null);
          break;
        case STUN_ATTR.CHANGE_REQUEST:
          if (len !== 4) throw new StunParseError('CHANGE-REQUEST of the wrong size');
          a.changeRequest ??= { changeIp: (v[3]! & 0x04) !== 0, changePort: (v[3]! & 0x02) !== 0 };
          break;
        case STUN_ATTR.ERROR_CODE:
          if (len < 4) throw new StunParseError('ERROR-CODE too short');
          // coturn counts NUL padding into the reason's length.
          a.errorCode ??= { code: (v[2]! & 0x07) * 100 + v[3]!, reason: text(v.subarray(4), 763, at).replace(/\0+$/, '') };
          break;
        case STUN_ATTR.SOFTWARE:
          a.software ??= text(v, 763, at);
          break;
        case STUN_ATTR.USERNAME:
          a.username ??= text(v, 513, at);
          break;
        default:
          if (at < 0x8000) msg.unknownRequired.push(at);
      }
    }
    pos = next;
  }
  return msg;
}

export interface StunEncodeInput {
  method?: number;
  cls: StunClass;
  transactionId: Buffer;
  attrs?: StunAttrs;
  /** Written after the known attributes, as given. */
  raw?: StunRawAttribute[];
  /** Short-term credential: the password (RFC 8489 9.1.1; OpaqueString preparation is left to the caller). */
  integrityKey?: Buffer | string;
  fingerprint?: boolean;
}

function tlv(type: number, value: Buffer): Buffer {
  if (value.length > 0xffff) throw new Error(`STUN attribute 0x${type.toString(16)} too long`);
  const out = Buffer.alloc(4 + ((value.length + 3) & ~3));
  out.writeUInt16BE(type, 0);
  out.writeUInt16BE(value.length, 2);
  value.copy(out, 4);
  return out;
}

export function encodeStun(m: StunEncodeInput): Buffer {
  if (m.transactionId.length !== 12) throw new Error('a STUN transaction id is 12 bytes');
  const a = m.attrs ?? {};
  const mask = xorMask(m.transactionId);
  const parts: Buffer[] = [];
  if (a.software !== undefined) parts.push(tlv(STUN_ATTR.SOFTWARE, Buffer.from(a.software, 'utf8')));
  if (a.username !== undefined) parts.push(tlv(STUN_ATTR.USERNAME, Buffer.from(a.username, 'utf8')));
  if (a.changeRequest) {
    const v = Buffer.alloc(4);
    v[3] = (a.changeRequest.changeIp ? 0x04 : 0) | (a.changeRequest.changePort ? 0x02 : 0);
    parts.push(tlv(STUN_ATTR.CHANGE_REQUEST, v));
  }
  if (a.errorCode) {
    const reason = Buffer.from(a.errorCode.reason, 'utf8');
    const v = Buffer.alloc(4 + reason.length);
    v[2] = Math.floor(a.errorCode.code / 100) & 0x07;
    v[3] = a.errorCode.code % 100;
    reason.copy(v, 4);
    parts.push(tlv(STUN_ATTR.ERROR_CODE, v));
  }
  if (a.xorMappedAddress) parts.push(tlv(STUN_ATTR.XOR_MAPPED_ADDRESS, writeAddress(a.xorMappedAddress, mask)));
  if (a.mappedAddress) parts.push(tlv(STUN_ATTR.MAPPED_ADDRESS, writeAddress(a.mappedAddress, null)));
  if (a.responseOrigin) parts.push(tlv(STUN_ATTR.RESPONSE_ORIGIN, writeAddress(a.responseOrigin, null)));
  if (a.otherAddress) parts.push(tlv(STUN_ATTR.OTHER_ADDRESS, writeAddress(a.otherAddress, null)));
  if (a.sourceAddress) parts.push(tlv(STUN_ATTR.SOURCE_ADDRESS, writeAddress(a.sourceAddress, null)));
  if (a.changedAddress) parts.push(tlv(STUN_ATTR.CHANGED_ADDRESS, writeAddress(a.changedAddress, null)));
  for (const r of m.raw ?? []) parts.push(tlv(r.type, r.value));

  const header = Buffer.alloc(STUN_HEADER_LENGTH);
  header.writeUInt16BE(messageType(m.method ?? STUN_METHOD_BINDING, m.cls), 0);
  header.writeUInt32BE(STUN_MAGIC_COOKIE, 4);
  m.transactionId.copy(header, 8);
  let body = Buffer.concat(parts);
  if (m.integrityKey !== undefined) {
    // The HMAC covers the header with a length that already counts the MESSAGE-INTEGRITY attribute.
    header.writeUInt16BE(body.length + 24, 2);
    const mac = createHmac('sha1', m.integrityKey).update(header).update(body).digest();
    body = Buffer.concat([body, tlv(STUN_ATTR.MESSAGE_INTEGRITY, mac)]);
  }
  if (m.fingerprint) {
    header.writeUInt16BE(body.length + 8, 2);
    const v = Buffer.alloc(4);
    v.writeUInt32BE((crc32(body, crc32(header)) ^ FINGERPRINT_XOR) >>> 0);
    body = Buffer.concat([body, tlv(STUN_ATTR.FINGERPRINT, v)]);
  }
  if (STUN_HEADER_LENGTH + body.length > 0xffff) throw new Error('STUN message too long');
  header.writeUInt16BE(body.length, 2);
  return Buffer.concat([header, body]);
}

/** Checks MESSAGE-INTEGRITY with a short-term credential's password (or any prepared key). */
export function verifyIntegrity(buf: Buffer, msg: StunMessage, key: Buffer | string): boolean {
  const at = msg.integrityAt;
  if (at === null || at + 24 > buf.length) return false;
  const header = Buffer.from(buf.subarray(0, STUN_HEADER_LENGTH));
  header.writeUInt16BE(at - STUN_HEADER_LENGTH + 24, 2);
  const mac = createHmac('sha1', key).update(header).update(buf.subarray(STUN_HEADER_LENGTH, at)).digest();
  return timingSafeEqual(mac, buf.subarray(at + 4, at + 24));
}

/** A Binding request; CHANGE-REQUEST only when a change is asked for (some servers reject the attribute). */
export function bindingRequest(o: { transactionId?: Buffer; changeIp?: boolean; changePort?: boolean; software?: string } = {}): { transactionId: Buffer; buf: Buffer } {
  const transactionId = o.transactionId ?? newTransactionId();
  const attrs: StunAttrs = {};
  if (o.software !== undefined) attrs.software = o.software;
  if (o.changeIp || o.changePort) attrs.changeRequest = { changeIp: !!o.changeIp, changePort: !!o.changePort };
  return { transactionId, buf: encodeStun({ cls: 'request', transactionId, attrs, fingerprint: true }) };
}

/** The address a response says the request came from: XOR-MAPPED-ADDRESS, else RFC 3489's MAPPED-ADDRESS. */
export function mappedOf(msg: StunMessage): StunAddress | undefined {
  return msg.attrs.xorMappedAddress ?? msg.attrs.mappedAddress;
}
