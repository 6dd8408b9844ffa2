/** Spaceship DNS API (API key and secret headers): records named by type, name and value. */
import { ALL_RECORDS, defineProvider, keyPair } from './define.js';

export const spaceship = defineProvider({
  label: 'dnsNameSpaceship',
  region: 'global',
  docs: 'https://docs.spaceship.dev/#tag/DNS-records',
  fields: keyPair('dnsCredApiKey', 'dnsCredApiSecret'),
  minTtl: 60,
  defaultTtl: 600,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
