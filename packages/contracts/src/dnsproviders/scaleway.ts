/** Scaleway Domains and DNS (`X-Auth-Token` with an API key's secret key): records changed with PATCH of a zone's changes. */
import { ALL_RECORDS, defineProvider } from './define.js';

export const scaleway = defineProvider({
  label: 'dnsNameScaleway',
  region: 'global',
  docs: 'https://www.scaleway.com/en/developers/api/domains-and-dns/',
  fields: [{ key: 'secret', label: 'dnsCredSecretKey' }],
  minTtl: 60,
  defaultTtl: 300,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
