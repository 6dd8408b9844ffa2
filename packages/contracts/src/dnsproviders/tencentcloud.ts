/** Tencent Cloud DNS: Tencent Cloud API 3.0 (service dnspod, TC3-HMAC-SHA256), the API DNSPod's accounts use too; `?RecordLine=` per domain. */
import { ALL_RECORDS, defineProvider, keyPair } from './define.js';

export const tencentcloud = defineProvider({
  label: 'dnsNameTencentcloud',
  region: 'cn',
  docs: 'https://cloud.tencent.com/document/api/1427/56180',
  fields: keyPair('dnsCredSecretId', 'dnsCredSecretKey'),
  minTtl: 600,
  defaultTtl: 600,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
