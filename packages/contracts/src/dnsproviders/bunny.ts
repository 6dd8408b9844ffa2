/** Bunny DNS (bunny.net API, `AccessKey` header): zones found by name, records by id. */
import { ALL_RECORDS, defineProvider, oneSecret } from './define.js';

export const bunny = defineProvider({
  label: 'dnsNameBunny',
  region: 'global',
  docs: 'https://docs.bunny.net/reference/dnszonepublic_index',
  fields: oneSecret('dnsCredApiKey'),
  minTtl: 15,
  defaultTtl: 300,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
