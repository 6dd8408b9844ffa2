/** GoDaddy Domains API v1 (`sso-key KEY:SECRET`). */
import { ALL_RECORDS, defineProvider, keyPair } from './define.js';

export const godaddy = defineProvider({
  label: 'dnsNameGodaddy',
  region: 'global',
  docs: 'https://developer.godaddy.com/doc/endpoint/domains',
  fields: keyPair('dnsCredKey', 'dnsCredSecret'),
  minTtl: 600,
  defaultTtl: 600,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
