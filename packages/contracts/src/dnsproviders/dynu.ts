/** Dynu API v2 (`API-Key` header): records by id under the account's domains. */
import { ALL_RECORDS, defineProvider, oneSecret } from './define.js';

export const dynu = defineProvider({
  label: 'dnsNameDynu',
  region: 'global',
  docs: 'https://www.dynu.com/Support/API',
  fields: oneSecret('dnsCredApiKey'),
  minTtl: 30,
  defaultTtl: 120,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
