/** Gcore DNS API v2 (`APIKey` token): RRsets. */
import { ALL_RECORDS, defineProvider, oneSecret } from './define.js';

export const gcore = defineProvider({
  label: 'dnsNameGcore',
  region: 'global',
  docs: 'https://api.gcore.com/docs/dns',
  fields: oneSecret('dnsCredApiToken'),
  minTtl: 120,
  defaultTtl: 120,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
