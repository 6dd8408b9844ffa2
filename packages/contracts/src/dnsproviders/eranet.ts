/** Eranet DNS API (Now.cn's API for Eranet accounts), queries signed the Alibaba RPC way with the AccessInstanceID. */
import { ALL_RECORDS, defineProvider, keyPair } from './define.js';

export const eranet = defineProvider({
  label: 'dnsNameEranet',
  region: 'cn',
  docs: 'https://www.eranet.com/',
  fields: keyPair('dnsCredAccessInstanceId', 'dnsCredAccessKeySecret'),
  minTtl: 600,
  defaultTtl: 600,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
