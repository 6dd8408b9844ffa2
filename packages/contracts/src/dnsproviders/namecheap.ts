/** Namecheap dynamic DNS: one GET per host with the domain's DDNS password; IPv4 only, write-only. */
import { defineProvider, oneSecret } from './define.js';

export const namecheap = defineProvider({
  label: 'dnsNameNamecheap',
  region: 'global',
  docs: 'https://www.namecheap.com/support/knowledgebase/article.aspx/29/11/how-to-dynamically-update-the-hosts-ip-with-an-http-request/',
  fields: oneSecret('dnsCredDdnsPassword'),
  minTtl: 60,
  defaultTtl: 60,
  records: ['A'],
  read: false,
  delete: false,
});
