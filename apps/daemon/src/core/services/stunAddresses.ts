/**
 * `stunAddresses`: the public address:port a STUN rule holds open through the NAT, for modules that
 * publish a service through one (Publish in STUN mode makes the rule through `rules`, then follows
 * what it learns here: the URL's port, the port records). Provided by the STUN module.
 */
import type { Msg } from '@lucky/contracts';

export interface StunAddress {
  /** The public address and port the STUN servers saw. */
  ip: string;
  port: number;
  /** The local port the rule holds open. */
  localPort: number;
  /** The router mappings the rule asked for (UPnP / NAT-PMP), as last answered. */
  mappings: Array<{ kind: 'upnp' | 'natpmp'; state: 'pending' | 'ok' | 'failed'; externalPort: number | null; reason: Msg | null }>;
  /** When the public address was last confirmed (ms). */
  checked: number;
}

export interface StunAddressesService {
  /** What the running rule learnt last; null when it does not run or has not heard a server yet. */
  current(rule: string): StunAddress | null;
  /** Called after every check of a rule whose public address or mappings differ from the check before. Returns the unsubscribe. */
  onChange(listener: (rule: string, now: StunAddress) => void): () => void;
}
