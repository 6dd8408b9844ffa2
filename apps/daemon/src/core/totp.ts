/**
 * TOTP (RFC 6238) codes as authenticator apps make them: SHA-1, 6 digits, 30 s, ±1 step accepted.
 * Checked with node:crypto at every 2FA login; the otpauth library is only needed to enrol.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function base32Bytes(text: string): Buffer {
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const ch of text.toUpperCase().replace(/[\s=-]/g, '')) {
    const i = BASE32.indexOf(ch);
    if (i < 0) throw new Error('not base32');
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** The code of one 30 s step (RFC 4226 dynamic truncation). */
export function totpCode(secretBase32: string, timestamp = Date.now()): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(timestamp / 30_000)));
  const mac = createHmac('sha1', base32Bytes(secretBase32)).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const n = (mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return String(n).padStart(6, '0');
}

export function verifyTotp(secretBase32: string, code: string | undefined, timestamp = Date.now()): boolean {
  if (!code || !/^\d{6}$/.test(code.trim())) return false;
  const given = Buffer.from(code.trim());
  let ok = false;
  for (const step of [-1, 0, 1]) ok = timingSafeEqual(Buffer.from(totpCode(secretBase32, timestamp + step * 30_000)), given) || ok;
  return ok;
}
