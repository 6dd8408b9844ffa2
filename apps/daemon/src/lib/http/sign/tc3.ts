/** Tencent Cloud API 3.0's TC3-HMAC-SHA256 (DNSPod, Tencent Cloud DNS, EdgeOne): a POST of JSON to `/`, content-type and host signed. */
import { createHash, createHmac } from 'node:crypto';

const sha256hex = (s: string) => createHash('sha256').update(s).digest('hex');
const hmac = (key: Buffer | string, s: string) => createHmac('sha256', key).update(s).digest();

/** The Authorization header value for one request (the documented signing steps). */
export function tc3Authorization(o: {
  secretId: string;
  secretKey: string;
  service: string;
  host: string;
  contentType: string;
  payload: string;
  timestamp: number;
}): string {
  const date = new Date(o.timestamp * 1000).toISOString().slice(0, 10);
  const signedHeaders = 'content-type;host';
  const canonical = ['POST', '/', '', `content-type:${o.contentType}\nhost:${o.host}\n`, signedHeaders, sha256hex(o.payload)].join('\n');
  const scope = `${date}/${o.service}/tc3_request`;
  const toSign = ['TC3-HMAC-SHA256', String(o.timestamp), scope, sha256hex(canonical)].join('\n');
  const kSigning = hmac(hmac(hmac(`TC3${o.secretKey}`, date), o.service), 'tc3_request');
  const signature = createHmac('sha256', kSigning).update(toSign).digest('hex');
  return `TC3-HMAC-SHA256 Credential=${o.secretId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
}
