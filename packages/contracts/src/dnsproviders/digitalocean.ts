/** DigitalOcean API v2 (bearer token): domain records by id. */
import { ALL_RECORDS, defineProvider, oneSecret } from './define.js';

export const digitalocean = defineProvider({
  label: 'dnsNameDigitalocean',
  region: 'global',
  docs: 'https://docs.digitalocean.com/reference/api/digitalocean/#tag/Domain-Records',
  fields: oneSecret('dnsCredApiToken'),
  minTtl: 30,
  defaultTtl: 300,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
