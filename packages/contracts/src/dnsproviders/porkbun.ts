/** Porkbun API v3: key and secret key in the JSON body. */
import { ALL_RECORDS, defineProvider, keyPair } from './define.js';

export const porkbun = defineProvider({
  label: 'dnsNamePorkbun',
  region: 'global',
  docs: 'https://porkbun.com/api/json/v3/documentation',
  fields: keyPair('dnsCredApiKey', 'dnsCredSecretApiKey'),
  minTtl: 600,
  defaultTtl: 600,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
