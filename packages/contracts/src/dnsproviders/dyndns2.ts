/** The dyndns2 protocol (`/nic/update?hostname=&myip=`, basic auth) at any server: routers, registrars, self-hosted updaters. Write-only. */
import { ADDRESSES, defineProvider } from './define.js';

export const dyndns2 = defineProvider({
  label: 'dnsNameDyndns2',
  region: 'protocol',
  docs: 'https://help.dyn.com/remote-access-api/perform-update/',
  fields: [
    { key: 'server', label: 'dnsCredUpdateUrl', format: 'url', hint: 'dnsHintUpdateUrl', placeholder: 'https://members.dyndns.org/nic/update' },
    { key: 'id', label: 'dnsCredUsername' },
    { key: 'secret', label: 'dnsCredPassword' },
  ],
  minTtl: 60,
  defaultTtl: 60,
  records: ADDRESSES,
  read: false,
  delete: false,
});
