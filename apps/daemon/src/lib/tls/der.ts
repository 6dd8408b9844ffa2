/**
 * Just enough DER (X.690) for what node:crypto does not build or expose: writing a CSR and a
 * PKCS#12 file, reading a certificate's serial and authority key id (ACME renewal information).
 */

function len(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** One TLV: tag, length, value. */
export function tlv(tag: number, ...parts: Buffer[]): Buffer {
  const value = Buffer.concat(parts);
  return Buffer.concat([Buffer.from([tag]), len(value.length), value]);
}

export const seq = (...parts: Buffer[]) => tlv(0x30, ...parts);
export const set = (...parts: Buffer[]) => tlv(0x31, ...parts);
export const octets = (b: Buffer) => tlv(0x04, b);
/** `[n]` EXPLICIT, constructed. */
export const explicit = (n: number, ...parts: Buffer[]) => tlv(0xa0 + n, ...parts);

/** A non-negative INTEGER. */
export function int(n: number | Buffer): Buffer {
  const hex = typeof n === 'number' ? n.toString(16) : '';
  let b = typeof n === 'number' ? Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex') : n;
  while (b.length > 1 && b[0] === 0 && b[1]! < 0x80) b = b.subarray(1);
  if (b[0]! >= 0x80) b = Buffer.concat([Buffer.from([0]), b]);
  return tlv(0x02, b);
}

export function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const out = [a! * 40 + b!];
  for (const n of rest) {
    const groups: number[] = [];
    let v = n;
    do {
      groups.unshift(v & 0x7f);
      v = Math.floor(v / 128);
    } while (v > 0);
    for (let i = 0; i < groups.length - 1; i++) groups[i]! |= 0x80;
    out.push(...groups);
  }
  return tlv(0x06, Buffer.from(out));
}

/** One element read: its tag, its value, and the whole encoding. */
export interface Der {
  tag: number;
  value: Buffer;
  raw: Buffer;
}

/** The element at `at`; throws on a truncated or indefinite-length encoding. */
export function readDer(buf: Buffer, at = 0): Der {
  const tag = buf[at];
  let l = buf[at + 1];
  if (tag === undefined || l === undefined) throw new Error('DER: truncated');
  let start = at + 2;
  if (l & 0x80) {
    const n = l & 0x7f;
    if (n === 0 || n > 4) throw new Error('DER: unsupported length');
    l = 0;
    for (let i = 0; i < n; i++) l = l * 256 + buf[start + i]!;
    start += n;
  }
  if (start + l > buf.length) throw new Error('DER: truncated');
  return { tag, value: buf.subarray(start, start + l), raw: buf.subarray(at, start + l) };
}

/** The elements inside a constructed one. */
export function children(el: Der): Der[] {
  const out: Der[] = [];
  for (let at = 0; at < el.value.length; ) {
    const c = readDer(el.value, at);
    out.push(c);
    at += c.raw.length;
  }
  return out;
}
