/** The user's own URL (the task's `callback` request); write-only. */
import { ADDRESSES, defineProvider } from './define.js';

export const callback = defineProvider({
  label: 'dnsNameCallback',
  region: 'protocol',
  docs: '',
  fields: [],
  minTtl: 1,
  defaultTtl: 600,
  records: ADDRESSES,
  read: false,
  delete: false,
});
