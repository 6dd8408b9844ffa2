/** DNSPod through Tencent Cloud API 3.0 (TC3-HMAC-SHA256); `?RecordLine=` per domain. */
import { ALL_RECORDS, defineProvider, keyPair } from './define.js';

export const dnspod = defineProvider({
  label: 'dnsNameDnspod',
  region: 'cn',
  docs: 'https://cloud.tencent.com/document/api/1427/56153',
  fields: keyPair('dnsCredSecretId', 'dnsCredSecretKey'),
  minTtl: 600,
  defaultTtl: 600,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
