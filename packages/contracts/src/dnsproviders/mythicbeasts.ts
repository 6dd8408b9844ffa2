/** Mythic Beasts DNS API v2 (HTTP basic auth with an API key id and secret): records per host and type. */
import { ALL_RECORDS, defineProvider, keyPair } from './define.js';

export const mythicbeasts = defineProvider({
  label: 'dnsNameMythicbeasts',
  region: 'global',
  docs: 'https://www.mythic-beasts.com/support/api/dnsv2',
  fields: keyPair('dnsCredKeyId', 'dnsCredSecret'),
  minTtl: 60,
  defaultTtl: 300,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
