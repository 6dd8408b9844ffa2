/**
 * dynv6 REST API (`Authorization: Bearer` with the account's HTTP token, the one its update URL
 * takes too, so tasks saved before keep their credential): zones of the account, their records.
 */
import { ALL_RECORDS, defineProvider, oneSecret } from './define.js';

export const dynv6 = defineProvider({
  label: 'dnsNameDynv6',
  region: 'global',
  docs: 'https://dynv6.github.io/api-spec/',
  fields: oneSecret('dnsCredHttpToken'),
  minTtl: 60,
  defaultTtl: 60,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
