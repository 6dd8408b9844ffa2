/** LuaDNS REST API (HTTP basic auth with the account's email and API token): zones by name, records by id. */
import { ALL_RECORDS, defineProvider } from './define.js';

export const luadns = defineProvider({
  label: 'dnsNameLuadns',
  region: 'global',
  docs: 'https://www.luadns.com/api.html',
  fields: [
    { key: 'id', label: 'dnsCredEmail' },
    { key: 'secret', label: 'dnsCredApiToken' },
  ],
  minTtl: 60,
  defaultTtl: 300,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
