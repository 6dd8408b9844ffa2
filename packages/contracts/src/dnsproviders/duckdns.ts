/** DuckDNS: one GET with the token; one TXT per domain, which delete clears. */
import { ALL_RECORDS, defineProvider, oneSecret } from './define.js';

export const duckdns = defineProvider({
  label: 'dnsNameDuckdns',
  region: 'global',
  docs: 'https://www.duckdns.org/spec.jsp',
  fields: oneSecret('dnsCredToken'),
  minTtl: 60,
  defaultTtl: 60,
  records: ALL_RECORDS,
  read: false,
  delete: true,
});
