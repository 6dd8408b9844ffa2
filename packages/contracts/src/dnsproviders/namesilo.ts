/** NameSilo API with the account's API key. */
import { ALL_RECORDS, defineProvider, oneSecret } from './define.js';

export const namesilo = defineProvider({
  label: 'dnsNameNamesilo',
  region: 'global',
  docs: 'https://www.namesilo.com/api-reference',
  fields: oneSecret('dnsCredApiKey'),
  minTtl: 3600,
  defaultTtl: 3600,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
