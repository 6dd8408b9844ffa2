/** TOTP (RFC 6238) codes as authenticator apps make them: SHA-1, 6 digits, 30 s, ±1 step accepted. */
import { Secret, TOTP } from 'otpauth';

export function totpFor(secretBase32: string): TOTP {
  return new TOTP({ secret: Secret.fromBase32(secretBase32), algorithm: 'SHA1', digits: 6, period: 30 });
}

export function verifyTotp(secretBase32: string, code: string | undefined, timestamp = Date.now()): boolean {
  if (!code || !/^\d{6}$/.test(code.trim())) return false;
  return totpFor(secretBase32).validate({ token: code.trim(), window: 1, timestamp }) !== null;
}
