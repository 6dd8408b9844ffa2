/** DNS.LA open API v2 (basic auth with the API ID and secret). */
import { ALL_RECORDS, defineProvider, keyPair } from './define.js';

export const dnsla = defineProvider({
  label: 'dnsNameDnsla',
  region: 'cn',
  docs: 'https://www.dns.la/docs/ApiDoc',
  fields: keyPair('dnsCredApiId', 'dnsCredApiSecret'),
  minTtl: 60,
  defaultTtl: 600,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
