/** DNSPod through Tencent Cloud API 3.0 (TC3-HMAC-SHA256), or DNSPod's own API with a DNSPod Token (ID and token); `?RecordLine=` per domain. */
import { ALL_RECORDS, defineProvider } from './define.js';

export const dnspod = defineProvider({
  label: 'dnsNameDnspod',
  region: 'cn',
  docs: 'https://cloud.tencent.com/document/api/1427/56153',
  fields: [
    { key: 'id', label: 'dnsCredDnspodId', hint: 'dnsHintDnspod' },
    { key: 'secret', label: 'dnsCredDnspodKey' },
  ],
  minTtl: 600,
  defaultTtl: 600,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
