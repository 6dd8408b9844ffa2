/** Baidu AI Cloud DNS (BCE auth v1). */
import { ALL_RECORDS, defineProvider, keyPair } from './define.js';

export const baiducloud = defineProvider({
  label: 'dnsNameBaiducloud',
  region: 'cn',
  docs: 'https://cloud.baidu.com/doc/BCD/s/4jwvymhs7',
  fields: keyPair('dnsCredAccessKey', 'dnsCredSecretAccessKey'),
  minTtl: 300,
  defaultTtl: 300,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
