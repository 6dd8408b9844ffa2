/** AWS Route 53 (REST/XML, Signature Version 4): hosted zones by name, record sets. */
import { ALL_RECORDS, defineProvider } from './define.js';

export const route53 = defineProvider({
  label: 'dnsNameRoute53',
  region: 'global',
  docs: 'https://docs.aws.amazon.com/Route53/latest/APIReference/API_ChangeResourceRecordSets.html',
  fields: [
    { key: 'id', label: 'dnsCredAccessKey' },
    { key: 'secret', label: 'dnsCredSecretAccessKey', hint: 'dnsHintRoute53' },
  ],
  minTtl: 60,
  defaultTtl: 300,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
