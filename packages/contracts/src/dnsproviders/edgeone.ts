/** Tencent Cloud EdgeOne (API 3.0, service teo, TC3-HMAC-SHA256): DNS records of a site. */
import { ALL_RECORDS, defineProvider, keyPair } from './define.js';

export const edgeone = defineProvider({
  label: 'dnsNameEdgeone',
  region: 'cn',
  docs: 'https://cloud.tencent.com/document/api/1552/80720',
  fields: keyPair('dnsCredSecretId', 'dnsCredSecretKey'),
  minTtl: 60,
  defaultTtl: 300,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
