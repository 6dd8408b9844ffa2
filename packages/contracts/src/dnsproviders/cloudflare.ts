/** Cloudflare API v4 with an API token (Zone.DNS edit); `?proxied=true`, `?comment=` per domain. */
import { ALL_RECORDS, defineProvider, oneSecret } from './define.js';

export const cloudflare = defineProvider({
  label: 'dnsNameCloudflare',
  region: 'global',
  docs: 'https://developers.cloudflare.com/api/resources/dns/subresources/records/',
  fields: oneSecret('dnsCredApiToken'),
  minTtl: 1,
  defaultTtl: 1,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
