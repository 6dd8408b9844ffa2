/** DNS Made Easy API v2.0 (API key, and an HMAC-SHA1 of the request date with the secret key): managed domains' records by id. */
import { ALL_RECORDS, defineProvider, keyPair } from './define.js';

export const dnsmadeeasy = defineProvider({
  label: 'dnsNameDnsmadeeasy',
  region: 'global',
  docs: 'https://api-docs.dnsmadeeasy.com/',
  fields: keyPair('dnsCredApiKey', 'dnsCredSecretKey'),
  minTtl: 30,
  defaultTtl: 300,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
