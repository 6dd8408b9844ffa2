/** Volcengine TrafficRoute DNS (open API 2018-08-01, Volcengine HMAC-SHA256 signature); `?Line=` per domain. */
import { ALL_RECORDS, defineProvider, keyPair } from './define.js';

export const volcengine = defineProvider({
  label: 'dnsNameVolcengine',
  region: 'cn',
  docs: 'https://www.volcengine.com/docs/6758/155086',
  fields: keyPair('dnsCredAccessKey', 'dnsCredSecretAccessKey'),
  minTtl: 600,
  defaultTtl: 600,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
