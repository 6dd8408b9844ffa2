/** Azure DNS (Resource Manager) with a service principal: tenant, application id and secret, subscription. */
import { ALL_RECORDS, defineProvider } from './define.js';

export const azure = defineProvider({
  label: 'dnsNameAzure',
  region: 'global',
  docs: 'https://learn.microsoft.com/en-us/rest/api/dns/record-sets',
  fields: [
    { key: 'id2', label: 'dnsCredTenantId' },
    { key: 'id3', label: 'dnsCredSubscriptionId' },
    { key: 'id', label: 'dnsCredClientId' },
    { key: 'secret', label: 'dnsCredClientSecret', hint: 'dnsHintAzure' },
  ],
  minTtl: 60,
  defaultTtl: 300,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
