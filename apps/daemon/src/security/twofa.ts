/**
 * 2FA enrolment and recovery codes. The secret is shown once while enrolling and switched on only
 * after a code from the app proves it was scanned; recovery codes are stored hashed and used once.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { BaseConfigStore } from '../core/baseconfig.js';
import { verifyTotp } from '../core/totp.js';
import { enrolTotp } from '../core/totpenrol.js';

const PENDING_MS = 10 * 60_000;
const RECOVERY_CODES = 8;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

export const hashRecoveryCode = (code: string): string =>
  createHash('sha256').update(code.toLowerCase().replace(/[^a-z2-7]/g, '')).digest('hex');

/** Ten base32 characters as xxxxx-xxxxx: 50 bits each, typed from paper. */
export function newRecoveryCodes(n = RECOVERY_CODES): string[] {
  return Array.from({ length: n }, () => {
    const chars = [...randomBytes(10)].map((b) => BASE32[b % 32]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

export class TwoFA {
  private pending = new Map<string, { secret: string; expires: number }>();

  constructor(private config: BaseConfigStore) {}

  /** A new secret for this session to scan; replaces any earlier pending one. */
  async start(sessionKey: string, account: string): Promise<{ secret: string; otpauthUrl: string; qrcode: string }> {
    const enrolment = await enrolTotp(account);
    this.pending.set(sessionKey, { secret: enrolment.secret, expires: Date.now() + PENDING_MS });
    return enrolment;
  }

  /** Switches 2FA on when the code matches the pending secret; returns the recovery codes. */
  confirm(sessionKey: string, code: string): string[] | 'noPending' | 'wrongCode' {
    const p = this.pending.get(sessionKey);
    if (!p || p.expires < Date.now()) return 'noPending';
    if (!verifyTotp(p.secret, code)) return 'wrongCode';
    this.pending.delete(sessionKey);
    const codes = newRecoveryCodes();
    this.config.update({ TwoFASecret: p.secret, TwoFARecoveryHashes: codes.map(hashRecoveryCode) });
    return codes;
  }

  disable(): void {
    this.config.update({ TwoFASecret: '', TwoFARecoveryHashes: [] });
  }

  regenerateRecovery(): string[] {
    const codes = newRecoveryCodes();
    this.config.update({ TwoFARecoveryHashes: codes.map(hashRecoveryCode) });
    return codes;
  }

  /** True for a valid current code, or for an unused recovery code (which is then used up). */
  verifyLogin(code: string | undefined): boolean {
    const cfg = this.config.get();
    if (cfg.TwoFASecret === '') return true;
    if (!code) return false;
    if (verifyTotp(cfg.TwoFASecret, code)) return true;
    const h = hashRecoveryCode(code);
    if (/^[a-z2-7]{5}-?[a-z2-7]{5}$/i.test(code.trim()) && cfg.TwoFARecoveryHashes.includes(h)) {
      this.config.update({ TwoFARecoveryHashes: cfg.TwoFARecoveryHashes.filter((x) => x !== h) });
      return true;
    }
    return false;
  }
}
