/** Hetzner Cloud DNS (api.hetzner.cloud, bearer token of a project): RRsets of zones by name and type. */
import { ALL_RECORDS, defineProvider, oneSecret } from './define.js';

export const hetznercloud = defineProvider({
  label: 'dnsNameHetznercloud',
  region: 'global',
  docs: 'https://docs.hetzner.cloud/reference/cloud#dns',
  fields: oneSecret('dnsCredApiToken'),
  minTtl: 60,
  defaultTtl: 300,
  records: ALL_RECORDS,
  read: true,
  delete: true,
});
