/** Hurricane Electric's dynamic DNS (dyn.dns.he.net): each record's own key; addresses and TXT (records made dynamic at dns.he.net). Write-only, no delete. */
import { ALL_RECORDS, defineProvider } from './define.js';

export const he = defineProvider({
  label: 'dnsNameHe',
  region: 'global',
  docs: 'https://dns.he.net/docs.html',
  fields: [{ key: 'secret', label: 'dnsCredDdnsKey', hint: 'dnsHintHeKey' }],
  minTtl: 300,
  defaultTtl: 300,
  records: ALL_RECORDS,
  read: false,
  delete: false,
});
