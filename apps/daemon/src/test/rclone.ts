/**
 * rclone as a real remote for the remote storage tests: `rclone serve webdav` on loopback serving a
 * temp directory the test can look into, with a login, and its own directory cache off (so what the
 * test writes beside it is seen at once, as a plain WebDAV server would).
 */
import { type ChildProcess, spawn } from 'node:child_process';

export const RCLONE_USER = 'ruser';
export const RCLONE_PASS = 'rpass';

export async function rcloneWebdav(dir: string, port: number): Promise<ChildProcess> {
  const p = spawn('rclone', ['serve', 'webdav', '--config', '/dev/null', '--dir-cache-time', '0s', '--addr', `127.0.0.1:${port}`, '--user', RCLONE_USER, '--pass', RCLONE_PASS, dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`rclone did not start: ${out}`)), 15_000);
    const on = (c: Buffer) => {
      out += c.toString();
      if (/WebDav Server started|Serving on|listening/i.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    p.stdout!.on('data', on);
    p.stderr!.on('data', on);
    p.once('exit', () => reject(new Error(`rclone exited: ${out}`)));
  });
  return p;
}
