/** PowerDNS Authoritative's HTTP API at the user's own server (`X-API-Key`): RRsets replaced or deleted with PATCH. */
import { ALL_RECORDS, defineProvider } from './define.js';

export const powerdns = defineProvider({
  label: 'dnsNamePowerdns',
  region: 'protocol',
  docs: 'https://doc.powerdns.com/authoritative/http-api/',
  fields: [
    { key: 'server', label: 'dnsCredApiUrl', format: 'url', hint: 'dnsHintPowerdns', placeholder: 'http://127.0.0.1:8081' },
    { key: 'secret', label: 'dnsCredApiKey' },
    { key: 'id', label: 'dnsCredServerId', optional: true, placeholder: 'localhost' },
  ],
  minTtl: 1,
  defaultTtl: 60,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
