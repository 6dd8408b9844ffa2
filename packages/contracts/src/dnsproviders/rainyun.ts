/** Rainyun (雨云) API v2 (`x-api-key`): records of a domain, given by its id or found by name. */
import { ALL_RECORDS, defineProvider } from './define.js';

export const rainyun = defineProvider({
  label: 'dnsNameRainyun',
  region: 'cn',
  docs: 'https://s.apifox.cn/a4595cc8-44c5-4678-a2a3-eed7738dab03/api-153559362',
  fields: [
    { key: 'id', label: 'dnsCredDomainId', optional: true, hint: 'dnsHintRainyunDomain' },
    { key: 'secret', label: 'dnsCredApiKey' },
  ],
  minTtl: 60,
  defaultTtl: 600,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
