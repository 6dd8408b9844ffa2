/**
 * A TLS front for a device's plain admin listener, as a reverse proxy with a self-signed
 * certificate would be: TLS on a loopback port of its own, bytes passed to the device's port. The
 * certificate (made by openssl) names 127.0.0.1, so it also serves as its own CA.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type TLSSocket } from 'node:tls';

export interface TlsFront {
  port: number;
  cert: string;
  /** SHA-256 fingerprint, `AB:CD:…`. */
  fingerprint: string;
  close(): Promise<void>;
}

/** A self-signed EC certificate for 127.0.0.1 (an IP name: the URL is https://127.0.0.1:port). */
export function selfSigned(): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'lucky-wanji-cert-'));
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem'), '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-addext', 'basicConstraints=critical,CA:TRUE'],
      { stdio: 'ignore', timeout: 20_000 },
    );
    return { cert: readFileSync(join(dir, 'c.pem'), 'utf8'), key: readFileSync(join(dir, 'k.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** On `port` (0: a free one), to the device's plain port on loopback. */
export async function tlsFront(targetPort: number, pair = selfSigned(), port = 0): Promise<TlsFront> {
  const open = new Set<Socket>();
  const server = createServer({ cert: pair.cert, key: pair.key }, (tls: TLSSocket) => {
    const up = connect(targetPort, '127.0.0.1');
    open.add(tls);
    open.add(up);
    const end = () => {
      tls.destroy();
      up.destroy();
      open.delete(tls);
      open.delete(up);
    };
    tls.on('error', end).on('close', end);
    up.on('error', end).on('close', end);
    tls.pipe(up).pipe(tls);
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cert: pair.cert,
    fingerprint: new X509Certificate(pair.cert).fingerprint256,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
