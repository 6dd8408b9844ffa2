/**
 * `dnsProviders`: the DNS providers DDNS speaks to, for other modules. A client sets records with
 * one account's credentials or a task's (ACME writes DNS-01 TXT records where the provider can); `publish` sends
 * an address through an existing DDNS task (STUN publishes its public address). Provided by the
 * DDNS module over lib/dns.
 */
import type { DdnsCredentials, DdnsProviderInfo, DdnsProviderName, DdnsSyncStatus, DdnsTask, HttpProxy, Msg, RuleOwner } from '@lucky/contracts';
import type { RecordType, SetOutcome } from '../../lib/dns/providers/types.js';

export interface DnsProviderListing extends DdnsProviderInfo {
  name: DdnsProviderName;
  /** The record types it can set. */
  records: RecordType[];
}

export interface DnsClientOptions {
  /** Default 20 s. */
  timeoutMs?: number;
  proxy?: HttpProxy;
  skipVerify?: boolean;
}

export interface DnsRecord {
  /** A domain line as DDNS takes it: `www.example.com`, `sub:zone.example`, `name?proxied=true`. */
  domain: string;
  type: RecordType;
  /** The address (A/AAAA) or the text (TXT). */
  value: string;
  /** Seconds; absent or 0 for the provider's default, raised to its minimum. */
  ttl?: number;
}

export interface DnsClient {
  readonly provider: DdnsProviderName;
  /** Makes the record hold the value; says whether it had to be written. Throws a MsgError (lib/msgerror). */
  set(record: DnsRecord): Promise<SetOutcome>;
  /** The values of the name's records of the type (TXT: the texts); null where the provider cannot read them. */
  list(record: Pick<DnsRecord, 'domain' | 'type'>): Promise<string[] | null>;
  /**
   * Deletes the name's records of the type — only those holding `value` when given and the provider
   * can tell them apart (lib/dns/providers/types.ts); false when the provider cannot delete (they stay).
   */
  remove(record: Pick<DnsRecord, 'domain' | 'type'> & { value?: string }): Promise<boolean>;
}

/** A DDNS task as another module chooses one to publish through. */
export interface DdnsTaskRef {
  key: string;
  name: string;
  enable: boolean;
  provider: DdnsProviderName;
  recordType: DdnsTask['recordType'];
  domains: string[];
  /** RFC 2136: the task's server (host:port), authoritative for its zone. */
  server?: string;
}

export interface PublishedRecord {
  domain: string;
  type: 'A' | 'AAAA';
  status: DdnsSyncStatus;
  ip: string;
  reason: Msg | null;
}

export interface DnsProvidersService {
  providers(): DnsProviderListing[];
  /** A client for one provider account. */
  client(provider: DdnsProviderName, credentials: Partial<DdnsCredentials>, opts?: DnsClientOptions): DnsClient;
  /**
   * A client with a DDNS task's own provider, credentials, proxy and timeout (ACME writes its DNS-01
   * TXT records through the task chosen in its rule); null when there is no such task.
   */
  taskClient(task: string): DnsClient | null;
  /** The DDNS tasks, to choose one to publish through. */
  tasks(): DdnsTaskRef[];
  /**
   * Publishes addresses through a task now (the provider is asked even if nothing changed), and
   * keeps using them instead of the task's own address source until the task stops. The task must
   * be switched on and DDNS running (an AppError otherwise). `from` is the publishing module's key,
   * for the task's log.
   */
  publish(task: string, addresses: { ipv4?: string; ipv6?: string }, from: string): Promise<PublishedRecord[]>;
  /**
   * The addresses a task found last ('' for a family it has none of yet), so that another module can
   * follow a dynamic address (FTP's passive address); null when the task does not exist or does not run.
   */
  addresses(task: string): Promise<{ ipv4: string; ipv6: string } | null>;
  /**
   * Keeps a task of the owner's (a published service) for `names`, with the `template` task's
   * provider, credentials, proxy and address source (the credentials never leave DDNS): created when
   * there is none, changed when it differs, marked with the owner. Every name must lie in the
   * template's zone. Resolves with its key; throws an AppError (no such template, a name outside its
   * zone) and changes nothing then.
   */
  ensureTask(owner: RuleOwner, o: { template: string; names: string[] }): Promise<string>;
  /** Deletes the owner's task; nothing when there is none. */
  releaseTask(owner: Pick<RuleOwner, 'module' | 'key'>): Promise<void>;
}
