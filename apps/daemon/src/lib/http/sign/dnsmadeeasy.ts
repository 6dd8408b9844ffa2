/**
 * DNS Made Easy API v2.0 request headers: the API key, the request date (RFC 1123, GMT) and the
 * HMAC-SHA1 (hex) of that date keyed with the secret key.
 */
import { createHmac } from 'node:crypto';

export function dnsMadeEasyHeaders(o: { apiKey: string; secretKey: string; date: Date }): Record<string, string> {
  const requestDate = o.date.toUTCString();
  return { 'x-dnsme-apikey': o.apiKey, 'x-dnsme-requestdate': requestDate, 'x-dnsme-hmac': createHmac('sha1', o.secretKey).update(requestDate).digest('hex') };
}
