/** NS1 (IBM NS1 Connect) API v1 (`X-NSONE-Key`): records with answers. */
import { ALL_RECORDS, defineProvider, oneSecret } from './define.js';

export const ns1 = defineProvider({
  label: 'dnsNameNs1',
  region: 'global',
  docs: 'https://developer.ibm.com/apis/catalog/ns1--ibm-ns1-connect-api/api/API--ns1--ibm-ns1-connect-api',
  fields: oneSecret('dnsCredApiKey'),
  minTtl: 60,
  defaultTtl: 300,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
