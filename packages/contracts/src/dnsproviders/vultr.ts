/** Vultr API v2 (bearer API key): the domain's records by id. */
import { ALL_RECORDS, defineProvider, oneSecret } from './define.js';

export const vultr = defineProvider({
  label: 'dnsNameVultr',
  region: 'global',
  docs: 'https://www.vultr.com/api/#tag/dns',
  fields: oneSecret('dnsCredApiKey'),
  minTtl: 60,
  defaultTtl: 300,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
