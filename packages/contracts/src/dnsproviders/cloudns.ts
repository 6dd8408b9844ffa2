/** ClouDNS API (auth-id and auth-password in each form POST); TTLs from ClouDNS's own list. */
import { ALL_RECORDS, defineProvider } from './define.js';

export const cloudns = defineProvider({
  label: 'dnsNameCloudns',
  region: 'global',
  docs: 'https://www.cloudns.net/wiki/article/58/',
  fields: [
    { key: 'id', label: 'dnsCredAuthId', hint: 'dnsHintCloudns' },
    { key: 'secret', label: 'dnsCredAuthPassword' },
  ],
  minTtl: 60,
  defaultTtl: 300,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
