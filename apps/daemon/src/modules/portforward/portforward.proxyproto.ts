/**
 * PROXY protocol headers (haproxy's proxy-protocol.txt) that tell the target who the client is.
 * v1 is one text line; v2 is binary: signature, version/command, family, length, addresses, ports.
 */
import { ipBytes } from '../../core/cidr.js';

export const PROXY_V2_SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);

export interface Endpoints {
  srcAddress: string;
  srcPort: number;
  dstAddress: string;
  dstPort: number;
}

/** IPv4 as 16 bytes (::ffff:a.b.c.d), for the case where one side is IPv6 and the other IPv4. */
function asV6(b: Uint8Array): Uint8Array {
  if (b.length === 16) return b;
  const out = new Uint8Array(16);
  out[10] = 0xff;
  out[11] = 0xff;
  out.set(b, 12);
  return out;
}

function v6Text(b: Uint8Array): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((b[i]! << 8) | b[i + 1]!).toString(16));
  return groups.join(':');
}

/** A v2 PROXY header for a stream (TCP) connection. Unknown addresses give a LOCAL header. */
export function proxyV2Header(e: Endpoints): Buffer {
  let src = ipBytes(e.srcAddress ?? '');
  let dst = ipBytes(e.dstAddress ?? '');
  if (!src || !dst) {
    const local = Buffer.alloc(16);
    PROXY_V2_SIGNATURE.copy(local, 0);
    local[12] = 0x20; // version 2, command LOCAL
    local[13] = 0x00; // UNSPEC
    local.writeUInt16BE(0, 14);
    return local;
  }
  if (src.length !== dst.length) {
    src = asV6(src);
    dst = asV6(dst);
  }
  const v4 = src.length === 4;
  const addrLen = v4 ? 12 : 36;
  const buf = Buffer.alloc(16 + addrLen);
  PROXY_V2_SIGNATURE.copy(buf, 0);
  buf[12] = 0x21; // version 2, command PROXY
  buf[13] = v4 ? 0x11 : 0x21; // AF_INET/AF_INET6 + STREAM
  buf.writeUInt16BE(addrLen, 14);
  buf.set(src, 16);
  buf.set(dst, 16 + src.length);
  buf.writeUInt16BE(e.srcPort, 16 + 2 * src.length);
  buf.writeUInt16BE(e.dstPort, 18 + 2 * src.length);
  return buf;
}

/** A v1 PROXY line: `PROXY TCP4 src dst sport dport\r\n`. */
export function proxyV1Header(e: Endpoints): Buffer {
  let src = ipBytes(e.srcAddress ?? '');
  let dst = ipBytes(e.dstAddress ?? '');
  if (!src || !dst) return Buffer.from('PROXY UNKNOWN\r\n');
  if (src.length !== dst.length) {
    src = asV6(src);
    dst = asV6(dst);
  }
  const v4 = src.length === 4;
  const text = (b: Uint8Array) => (v4 ? Array.from(b).join('.') : v6Text(b));
  return Buffer.from(`PROXY ${v4 ? 'TCP4' : 'TCP6'} ${text(src)} ${text(dst)} ${e.srcPort} ${e.dstPort}\r\n`);
}

export interface ParsedProxyV2 {
  command: 'LOCAL' | 'PROXY';
  family: 'UNSPEC' | 'TCP4' | 'TCP6';
  srcAddress: string;
  dstAddress: string;
  srcPort: number;
  dstPort: number;
  /** Bytes the header took. */
  length: number;
}

/** Reads a v2 header at the start of `buf`; null when incomplete or not a v2 header. */
export function parseProxyV2(buf: Buffer): ParsedProxyV2 | null {
  if (buf.length < 16 || !buf.subarray(0, 12).equals(PROXY_V2_SIGNATURE)) return null;
  const verCmd = buf[12]!;
  if (verCmd >> 4 !== 2) return null;
  const len = buf.readUInt16BE(14);
  if (buf.length < 16 + len) return null;
  const famByte = buf[13]!;
  const command = (verCmd & 0x0f) === 1 ? 'PROXY' : 'LOCAL';
  const out: ParsedProxyV2 = { command, family: 'UNSPEC', srcAddress: '', dstAddress: '', srcPort: 0, dstPort: 0, length: 16 + len };
  if (famByte === 0x11 && len >= 12) {
    out.family = 'TCP4';
    out.srcAddress = Array.from(buf.subarray(16, 20)).join('.');
    out.dstAddress = Array.from(buf.subarray(20, 24)).join('.');
    out.srcPort = buf.readUInt16BE(24);
    out.dstPort = buf.readUInt16BE(26);
  } else if (famByte === 0x21 && len >= 36) {
    out.family = 'TCP6';
    out.srcAddress = v6Text(buf.subarray(16, 32));
    out.dstAddress = v6Text(buf.subarray(32, 48));
    out.srcPort = buf.readUInt16BE(48);
    out.dstPort = buf.readUInt16BE(50);
  }
  return out;
}
