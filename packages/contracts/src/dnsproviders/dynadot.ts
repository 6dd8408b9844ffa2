/** Dynadot dynamic DNS (`set_ddns`, the domain's dynamic DNS password): addresses only, write-only. */
import { ADDRESSES, defineProvider } from './define.js';

export const dynadot = defineProvider({
  label: 'dnsNameDynadot',
  region: 'global',
  docs: 'https://www.dynadot.com/community/help/question/set-up-dynamic-dns',
  fields: [{ key: 'secret', label: 'dnsCredDdnsPassword', hint: 'dnsHintDynadot' }],
  minTtl: 60,
  defaultTtl: 600,
  records: ADDRESSES,
  read: false,
  delete: false,
});
