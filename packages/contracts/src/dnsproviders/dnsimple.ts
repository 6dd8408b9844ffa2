/** DNSimple API v2 (bearer token of an account): the account's zone records by id. */
import { ALL_RECORDS, defineProvider } from './define.js';

export const dnsimple = defineProvider({
  label: 'dnsNameDnsimple',
  region: 'global',
  docs: 'https://developer.dnsimple.com/v2/zones/records/',
  fields: [
    { key: 'id', label: 'dnsCredAccountId', hint: 'dnsHintDnsimple' },
    { key: 'secret', label: 'dnsCredApiToken' },
  ],
  minTtl: 60,
  defaultTtl: 3600,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
