/** Alibaba Cloud DNS (RPC API 2015-01-09, signature v1.0); `?Line=` per domain. */
import { ALL_RECORDS, defineProvider, keyPair } from './define.js';

export const alidns = defineProvider({
  label: 'dnsNameAlidns',
  region: 'cn',
  docs: 'https://help.aliyun.com/zh/dns/api-alidns-2015-01-09-overview',
  fields: keyPair('dnsCredAccessKeyId', 'dnsCredAccessKeySecret'),
  minTtl: 600,
  defaultTtl: 600,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
