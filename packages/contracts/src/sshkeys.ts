/**
 * OpenSSH public keys as users paste them (`authorized_keys` lines): read here so the console and
 * the daemon agree on what a valid line is. Options before the key (`from="…"`, `command="…"`)
 * are refused rather than ignored: a restriction the operator wrote must never be dropped silently.
 */

/** Key types the SFTP server verifies signatures of. */
export const SSH_KEY_TYPES = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'ssh-rsa'] as const;
export type SshKeyType = (typeof SSH_KEY_TYPES)[number];

export interface AuthorizedKey {
  type: SshKeyType;
  /** The key blob, base64 as in the line. */
  blob: string;
  comment: string;
}

/** Why a line is not a key the server can use. */
export type AuthorizedKeyProblem = 'sshKeyOptions' | 'sshKeyType' | 'sshKeyBlob';

export type AuthorizedKeyLine = { line: number; key: AuthorizedKey } | { line: number; problem: AuthorizedKeyProblem };

function decode(b64: string): Uint8Array | null {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0) return null;
  try {
    return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/** The blob's own type name (its first SSH string) must be the line's type. */
function blobType(blob: Uint8Array): string | null {
  if (blob.length < 4) return null;
  const n = ((blob[0]! << 24) | (blob[1]! << 16) | (blob[2]! << 8) | blob[3]!) >>> 0;
  if (n === 0 || n > 64 || 4 + n > blob.length) return null;
  return String.fromCharCode(...blob.subarray(4, 4 + n));
}

/** Each key line (blank lines and `#` comments skipped), numbered from 1, with its key or its problem. */
export function parseAuthorizedKeys(text: string): AuthorizedKeyLine[] {
  const out: AuthorizedKeyLine[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const [type = '', b64 = '', ...rest] = line.split(/\s+/);
    if (!(SSH_KEY_TYPES as readonly string[]).includes(type)) {
      // `no-pty ssh-ed25519 AAAA…`: a known type later on the line means options come first.
      const known = line.split(/\s+/).some((w) => (SSH_KEY_TYPES as readonly string[]).includes(w));
      out.push({ line: i + 1, problem: known ? 'sshKeyOptions' : 'sshKeyType' });
      return;
    }
    const blob = decode(b64);
    if (!blob || blobType(blob) !== type) {
      out.push({ line: i + 1, problem: 'sshKeyBlob' });
      return;
    }
    out.push({ line: i + 1, key: { type: type as SshKeyType, blob: b64, comment: rest.join(' ') } });
  });
  return out;
}
