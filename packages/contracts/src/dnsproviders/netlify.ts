/** Netlify DNS (bearer personal access token): a zone's records, added and deleted (no update: a change is a new record). */
import { ALL_RECORDS, defineProvider } from './define.js';

export const netlify = defineProvider({
  label: 'dnsNameNetlify',
  region: 'global',
  docs: 'https://open-api.netlify.com/#tag/dnsZone',
  fields: [{ key: 'secret', label: 'dnsCredToken', hint: 'dnsHintPat' }],
  minTtl: 60,
  defaultTtl: 3600,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
