/**
 * A new TOTP secret to scan: the secret, its otpauth URL and a QR code of it. Only enrolment needs
 * these two libraries, so they are imported here when asked, not when the daemon starts.
 */
export async function enrolTotp(label: string): Promise<{ secret: string; otpauthUrl: string; qrcode: string }> {
  const [{ Secret, TOTP }, { default: QRCode }] = await Promise.all([import('otpauth'), import('qrcode')]);
  const secret = new Secret({ size: 20 }).base32;
  const otpauthUrl = new TOTP({ issuer: 'Lucky', label, secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).toString();
  const qrcode = await QRCode.toDataURL(otpauthUrl, { errorCorrectionLevel: 'M', margin: 1, width: 220 });
  return { secret, otpauthUrl, qrcode };
}
