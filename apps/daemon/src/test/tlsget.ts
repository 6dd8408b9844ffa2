/**
 * One HTTPS GET over a raw TLS connection to 127.0.0.1 with the SNI a test chooses, verified against
 * the CA it trusts but not refused: what a test of certificates needs to see is whether the chain
 * verified, which certificate came, and the answer.
 */
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';

export async function tlsGet(port: number, servername: string, ca: string, path = '/'): Promise<{ authorized: boolean; cert: X509Certificate; answer: string }> {
  const socket = connect({ host: '127.0.0.1', port, servername, ca, rejectUnauthorized: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', resolve);
    socket.once('error', reject);
  });
  const cert = new X509Certificate(socket.getPeerCertificate(true).raw);
  const authorized = socket.authorized;
  const answer = await new Promise<string>((resolve, reject) => {
    let got = '';
    socket.on('data', (b: Buffer) => (got += b.toString()));
    socket.once('end', () => resolve(got));
    socket.once('error', reject);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${servername}\r\nConnection: close\r\n\r\n`);
  });
  socket.destroy();
  return { authorized, cert, answer };
}
