/**
 * Whether the LAN target answers: one GET of its URL (5 s, TLS not verified: a LAN device's own
 * certificate), any HTTP answer below 500 counts as up.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export function probeTarget(url: string, timeoutMs = 5000): Promise<{ up: boolean; detail: string }> {
  return new Promise((resolve) => {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return resolve({ up: false, detail: 'bad URL' });
    }
    const request = u.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(u, { method: 'GET', timeout: timeoutMs, rejectUnauthorized: false, headers: { 'user-agent': 'Lucky publish check' } }, (res) => {
      res.resume();
      const status = res.statusCode ?? 0;
      resolve({ up: status > 0 && status < 500, detail: String(status) });
      req.destroy();
    });
    req.once('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    req.once('error', (err: NodeJS.ErrnoException) => resolve({ up: false, detail: err.code ?? err.message }));
    req.end();
  });
}
