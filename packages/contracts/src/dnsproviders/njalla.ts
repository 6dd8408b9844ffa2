/** Njalla API (JSON-RPC, `Authorization: Njalla <token>`): a domain's records by id. */
import { ALL_RECORDS, defineProvider, oneSecret } from './define.js';

export const njalla = defineProvider({
  label: 'dnsNameNjalla',
  region: 'global',
  docs: 'https://njal.la/api/',
  fields: oneSecret('dnsCredApiToken'),
  minTtl: 60,
  defaultTtl: 300,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
