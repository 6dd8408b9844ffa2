/** Hetzner DNS API (`Auth-API-Token` header): zones by name, records by id. */
import { ALL_RECORDS, defineProvider, oneSecret } from './define.js';

export const hetzner = defineProvider({
  label: 'dnsNameHetzner',
  region: 'global',
  docs: 'https://dns.hetzner.com/api-docs',
  fields: oneSecret('dnsCredApiToken'),
  minTtl: 60,
  defaultTtl: 300,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
