/** dynv6 update API with the zone's HTTP token; write-only. */
import { ADDRESSES, defineProvider, oneSecret } from './define.js';

export const dynv6 = defineProvider({
  label: 'dnsNameDynv6',
  region: 'global',
  docs: 'https://dynv6.com/docs/apis',
  fields: oneSecret('dnsCredHttpToken'),
  minTtl: 60,
  defaultTtl: 60,
  records: ADDRESSES,
  read: false,
  delete: false,
});
