/** Huawei Cloud DNS v2 (APIG SDK-HMAC-SHA256), record sets. */
import { ALL_RECORDS, defineProvider, keyPair } from './define.js';

export const huaweicloud = defineProvider({
  label: 'dnsNameHuaweicloud',
  region: 'cn',
  docs: 'https://support.huaweicloud.com/api-dns/dns_api_64001.html',
  fields: keyPair('dnsCredAccessKey', 'dnsCredSecretAccessKey'),
  minTtl: 1,
  defaultTtl: 300,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
