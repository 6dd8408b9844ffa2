/** No-IP: the dyndns2 protocol at dynupdate.no-ip.com (account or DDNS key user name and password). Write-only. */
import { ADDRESSES, defineProvider, keyPair } from './define.js';

export const noip = defineProvider({
  label: 'dnsNameNoip',
  region: 'global',
  docs: 'https://www.noip.com/integrate/request',
  fields: keyPair('dnsCredUsername', 'dnsCredPassword'),
  minTtl: 60,
  defaultTtl: 60,
  records: ADDRESSES,
  read: false,
  delete: false,
});
