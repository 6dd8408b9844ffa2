/** Now.cn (时代互联, Todaynic) DNS API: the user id and API key in each query. */
import { ALL_RECORDS, defineProvider, keyPair } from './define.js';

export const nowcn = defineProvider({
  label: 'dnsNameNowcn',
  region: 'cn',
  docs: 'https://www.todaynic.com/partner/mode_Http_Api_detail.php?target_id=d15d8028-7c4f-4a5c-9d15-3a4481c4178e',
  fields: keyPair('dnsCredUserId', 'dnsCredApiKey'),
  minTtl: 600,
  defaultTtl: 600,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
