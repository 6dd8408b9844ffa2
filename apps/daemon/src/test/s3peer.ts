/**
 * The S3-compatible peer of the remote storage tests (the storage module's, and every service's
 * over a remote): s3rver (npm `@20minutes/s3rver`, the maintained fork of `s3rver` whose SigV4
 * check the original's last release lacks) in a child process on loopback, so a test can kill it
 * as a remote dies. Its objects live as files in `dir`.
 * Virtual-host requests are recognised as `<bucket>.s3.localhost` (its service endpoint set to
 * `localhost`); path-style as `127.0.0.1:port/<bucket>`. Node runs it with OpenSSL's legacy
 * provider: s3rver encrypts its listings' continuation tokens with DES, which OpenSSL 3 refuses
 * otherwise (every truncated listing would be an InternalError).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';

export const S3_KEY_ID = 'lucky-test-key';
export const S3_SECRET = 'lucky-test-secret/with+chars';
export const S3_BUCKET = 'lucky-bucket';

const CHILD = `
const [main, dir, port, vhostPort, keyId, secret, bucket] = process.argv.slice(1);
const S3rver = require(main);
const Account = require(require('node:path').join(require('node:path').dirname(main), 'models', 'account.js'));
// Our own key pair; the built-in S3RVER/S3RVER one is revoked so only ours is taken.
Account.DUMMY_ACCOUNT.revokeAccessKey('S3RVER');
Account.DUMMY_ACCOUNT.createKeyPair(keyId, secret);
const opts = { address: '127.0.0.1', directory: dir, silent: !process.env.S3PEER_LOG, serviceEndpoint: 'localhost', configureBuckets: [{ name: bucket }] };
Promise.all([
  new S3rver({ ...opts, port: Number(port) }).run(),
  // The same objects for virtual-host requests, signatures not compared (see the test's header).
  new S3rver({ ...opts, port: Number(vhostPort), allowMismatchedSignatures: true }).run(),
]).then(() => process.stdout.write('ready\\n'), (e) => { console.error(e); process.exit(1); });
`;

/**
 * Starts the peer: `port` checks signatures; `vhostPort` serves the same objects with signatures
 * not compared (its key still must exist), for virtual-host requests, whose canonical path s3rver
 * computes as `/bucket/key` where AWS (and we) use `/key`.
 */
export async function startS3Peer(dir: string, port: number, vhostPort: number): Promise<ChildProcess> {
  const main = createRequire(import.meta.url).resolve('@20minutes/s3rver');
  const p = spawn(process.execPath, ['--openssl-legacy-provider', '-e', CHILD, main, dir, String(port), String(vhostPort), S3_KEY_ID, S3_SECRET, S3_BUCKET], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`s3rver did not start: ${out}`)), 15_000);
    const on = (c: Buffer) => {
      if (process.env.S3PEER_LOG) process.stderr.write(c);
      out += c.toString();
      if (out.includes('ready')) {
        clearTimeout(timer);
        resolve();
      }
    };
    p.stdout!.on('data', on);
    p.stderr!.on('data', on);
    p.once('exit', () => reject(new Error(`s3rver exited: ${out}`)));
  });
  return p;
}
