/** Linode (Akamai) API v4 (bearer token): domains by name, records by id. */
import { ALL_RECORDS, defineProvider, oneSecret } from './define.js';

export const linode = defineProvider({
  label: 'dnsNameLinode',
  region: 'global',
  docs: 'https://techdocs.akamai.com/linode-api/reference/get-domain-records',
  fields: oneSecret('dnsCredApiToken'),
  minTtl: 30,
  defaultTtl: 300,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
