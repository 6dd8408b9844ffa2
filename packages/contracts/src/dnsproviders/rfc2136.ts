/** RFC 2136 dynamic update signed with TSIG, to the zone's primary server. */
import { ALL_RECORDS, defineProvider, PORT_RECORDS, TSIG_ALGORITHMS } from './define.js';

export const rfc2136 = defineProvider({
  label: 'dnsNameRfc2136',
  region: 'protocol',
  docs: 'https://www.rfc-editor.org/rfc/rfc2136',
  fields: [
    { key: 'id', label: 'dnsCredTsigName' },
    { key: 'secret', label: 'dnsCredTsigSecret', format: 'base64' },
    { key: 'server', label: 'dnsCredDnsServer', format: 'hostport' },
    { key: 'algorithm', label: 'dnsCredTsigAlgorithm', options: TSIG_ALGORITHMS },
  ],
  minTtl: 1,
  defaultTtl: 300,
  records: [...ALL_RECORDS, ...PORT_RECORDS],
  read: true,
  delete: true,
});
