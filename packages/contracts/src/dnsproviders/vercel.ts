/** Vercel DNS: bearer token, optional team id. */
import { ALL_RECORDS, defineProvider } from './define.js';

export const vercel = defineProvider({
  label: 'dnsNameVercel',
  region: 'global',
  docs: 'https://vercel.com/docs/rest-api/reference/endpoints/dns',
  fields: [
    { key: 'id', label: 'dnsCredTeamId', optional: true },
    { key: 'secret', label: 'dnsCredToken' },
  ],
  minTtl: 60,
  defaultTtl: 60,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
