/** IONOS DNS API (`X-API-Key`: public prefix and secret joined by a dot): zones by name, records by id. */
import { ALL_RECORDS, defineProvider } from './define.js';

export const ionos = defineProvider({
  label: 'dnsNameIonos',
  region: 'global',
  docs: 'https://developer.hosting.ionos.com/docs/dns',
  fields: [{ key: 'secret', label: 'dnsCredApiKey', hint: 'dnsHintIonos' }],
  minTtl: 300,
  defaultTtl: 3600,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
