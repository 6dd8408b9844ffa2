/** deSEC REST API (`Token` auth), RRsets. */
import { ALL_RECORDS, defineProvider, oneSecret } from './define.js';

export const desec = defineProvider({
  label: 'dnsNameDesec',
  region: 'global',
  docs: 'https://desec.readthedocs.io/en/latest/dns/rrsets.html',
  fields: oneSecret('dnsCredToken'),
  minTtl: 3600,
  defaultTtl: 3600,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
