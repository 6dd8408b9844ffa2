/** OVHcloud API (application key and secret, consumer key; `$1$` signatures) at the account's endpoint. */
import { ALL_RECORDS, defineProvider } from './define.js';

/** The API endpoints by region (`credentials.server`). */
export const OVH_REGIONS = ['ovh-eu', 'ovh-ca', 'ovh-us'] as const;

export const ovh = defineProvider({
  label: 'dnsNameOvh',
  region: 'global',
  docs: 'https://help.ovhcloud.com/csm/en-api-getting-started-ovhcloud-api',
  fields: [
    { key: 'server', label: 'dnsCredEndpoint', options: OVH_REGIONS },
    { key: 'id', label: 'dnsCredAppKey' },
    { key: 'secret', label: 'dnsCredAppSecret' },
    { key: 'secret2', label: 'dnsCredConsumerKey', hint: 'dnsHintOvh' },
  ],
  minTtl: 60,
  defaultTtl: 300,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
