/** Alibaba Cloud ESA (RPC API 2024-09-10, signature v1.0): DNS records of a site. */
import { ALL_RECORDS, defineProvider, keyPair } from './define.js';

export const aliesa = defineProvider({
  label: 'dnsNameAliesa',
  region: 'cn',
  docs: 'https://help.aliyun.com/zh/edge-security-acceleration/esa/api-esa-2024-09-10-createrecord',
  fields: keyPair('dnsCredAccessKeyId', 'dnsCredAccessKeySecret'),
  minTtl: 30,
  defaultTtl: 600,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
