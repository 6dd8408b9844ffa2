/** Gandi LiveDNS API v5 (personal access token): record sets by name and type. */
import { ALL_RECORDS, defineProvider } from './define.js';

export const gandi = defineProvider({
  label: 'dnsNameGandi',
  region: 'global',
  docs: 'https://api.gandi.net/docs/livedns/',
  fields: [{ key: 'secret', label: 'dnsCredApiToken', hint: 'dnsHintPat' }],
  minTtl: 300,
  defaultTtl: 300,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
