/**
 * OVHcloud API signature: `$1$` + SHA-1 (hex) of the application secret, the consumer key, the
 * method, the full URL, the body and the timestamp, joined with `+`.
 */
import { createHash } from 'node:crypto';

export function ovhSignature(o: { appSecret: string; consumerKey: string; method: string; url: string; body: string; timestamp: number }): string {
  const text = [o.appSecret, o.consumerKey, o.method, o.url, o.body, String(o.timestamp)].join('+');
  return `$1$${createHash('sha1').update(text).digest('hex')}`;
}
