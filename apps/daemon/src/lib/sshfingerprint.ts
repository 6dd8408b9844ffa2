/** SSH host key fingerprints, as OpenSSH shows them (the SFTP server's own keys, a remote SFTP storage's pinned key). */
import { createHash } from 'node:crypto';

/** `SHA256:` and the unpadded base64 of the public key blob's digest, as `ssh-keygen -lf` prints it. */
export function fingerprintOf(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}
