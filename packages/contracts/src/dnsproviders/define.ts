/**
 * What a DNS provider is, declared once per provider (one file each in this folder, no HTTP code):
 * its name and group, its documentation, the credential fields it takes (label, which are secret,
 * how each is checked), its TTL limits, the record types it can set and whether it can read and
 * delete them. The task schema's checks, the console's provider list and form, masking and the
 * daemon's `providers` listing all follow from these; the daemon's client of the provider lives in
 * apps/daemon/src/lib/dns/providers/<name>.ts.
 */
import type { MessageKey } from '../messages.js';

/** How the console groups providers: mainland China, international, protocols anyone can serve. */
export const DNS_REGIONS = ['cn', 'global', 'protocol'] as const;
export type DnsRegion = (typeof DNS_REGIONS)[number];
export const DNS_REGION_LABEL: Record<DnsRegion, MessageKey> = { cn: 'dnsRegionCn', global: 'dnsRegionGlobal', protocol: 'dnsRegionProtocol' };

/** SRV and HTTPS: where a service is reached on a port of its own (Publish in STUN mode). */
export type DnsRecordType = 'A' | 'AAAA' | 'TXT' | 'SRV' | 'HTTPS';

/**
 * Where a credential is kept in a task's `credentials`. `secret` and `secret2` are the secret ones
 * (masked in answers, kept when the mask comes back, left out of backups): a field holding a secret
 * must use one of them.
 */
export const DNS_CRED_KEYS = ['id', 'secret', 'server', 'algorithm', 'id2', 'id3', 'secret2'] as const;
export type DnsCredKey = (typeof DNS_CRED_KEYS)[number];
export const SECRET_CRED_KEYS: readonly DnsCredKey[] = ['secret', 'secret2'];

export interface DnsCredField {
  key: DnsCredKey;
  label: MessageKey;
  /** May stay empty. */
  optional?: boolean;
  /** How a value is checked: `host:port` (port 53 when left out), an http(s) URL, base64. */
  format?: 'hostport' | 'url' | 'base64';
  /** A choice among these values (a select in the console). */
  options?: readonly string[];
  /** A line under the field. */
  hint?: MessageKey;
  placeholder?: string;
}

export interface DnsProviderSpec {
  label: MessageKey;
  region: DnsRegion;
  /** The provider's API (or protocol) documentation. */
  docs: string;
  fields: readonly DnsCredField[];
  minTtl: number;
  defaultTtl: number;
  /** The record types it sets: A always; AAAA where it has IPv6; TXT (ACME DNS-01) where its API has them. */
  records: readonly DnsRecordType[];
  /** Reads its records back (list): DDNS compares before writing, `providerRecordSame`. */
  read: boolean;
  /** Deletes records (ACME removes its TXT when done). */
  delete: boolean;
}

export interface DnsProviderDescription extends DnsProviderSpec {
  /** Sets AAAA records. */
  ipv6: boolean;
  /** Sets and removes TXT records (ACME DNS-01). */
  txt: boolean;
}

export function defineProvider(spec: DnsProviderSpec): DnsProviderDescription {
  return { ...spec, ipv6: spec.records.includes('AAAA'), txt: spec.records.includes('TXT') };
}

export const isSecretField = (f: Pick<DnsCredField, 'key'>): boolean => SECRET_CRED_KEYS.includes(f.key);

/** The most common pair: a key id and its secret. */
export function keyPair(id: MessageKey, secret: MessageKey): DnsCredField[] {
  return [
    { key: 'id', label: id },
    { key: 'secret', label: secret },
  ];
}

/** One secret: an API token, a key, a password. */
export function oneSecret(label: MessageKey): DnsCredField[] {
  return [{ key: 'secret', label }];
}

/** RFC 2136's TSIG algorithms (the task's `credentials.algorithm`). */
export const TSIG_ALGORITHMS = ['hmac-sha256', 'hmac-sha512', 'hmac-sha1'] as const;

export const ADDRESSES: readonly DnsRecordType[] = ['A', 'AAAA'];
export const ALL_RECORDS: readonly DnsRecordType[] = ['A', 'AAAA', 'TXT'];
/** Besides the addresses and texts, the records that carry a port (a protocol that writes any type). */
export const PORT_RECORDS: readonly DnsRecordType[] = ['SRV', 'HTTPS'];
