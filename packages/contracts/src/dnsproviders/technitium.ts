/** Technitium DNS Server's HTTP API at the user's own server (an API token): records of its zones by value. */
import { ALL_RECORDS, defineProvider } from './define.js';

export const technitium = defineProvider({
  label: 'dnsNameTechnitium',
  region: 'protocol',
  docs: 'https://github.com/TechnitiumSoftware/DnsServer/blob/master/APIDOCS.md',
  fields: [
    { key: 'server', label: 'dnsCredApiUrl', format: 'url', hint: 'dnsHintTechnitium', placeholder: 'http://127.0.0.1:5380' },
    { key: 'secret', label: 'dnsCredApiToken' },
  ],
  minTtl: 1,
  defaultTtl: 60,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
