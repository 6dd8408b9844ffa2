/** Name.com API v4 (basic auth: user name and API token). */
import { ALL_RECORDS, defineProvider, keyPair } from './define.js';

export const namecom = defineProvider({
  label: 'dnsNameNamecom',
  region: 'global',
  docs: 'https://www.name.com/api-docs/dns',
  fields: keyPair('dnsCredUsername', 'dnsCredApiToken'),
  minTtl: 300,
  defaultTtl: 300,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
