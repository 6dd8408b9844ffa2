/**
 * `portMappings`: a port forward kept on the router by UPnP IGD (or NAT-PMP when the router offers
 * no UPnP), for modules that publish a LAN service (Publish) without a STUN rule. Provided by the
 * STUN module, over the same protocol code its rules use. The mapping is asked for again at every
 * check (a router that restarted or was renumbered has lost it), renewed before its lease ends,
 * and removed when let go.
 */
import type { Msg } from '@lucky/contracts';

export interface PortMappingRequest {
  protocol: 'tcp' | 'udp';
  /** The port on this host the router sends to. */
  internalPort: number;
  /** The public port wished for; a router may give another (`state().externalPort`). */
  externalPort: number;
  /** Shown in the router's list. */
  description: string;
  /** UPnP: the device description URL; empty: found by SSDP. */
  upnpUrl?: string;
  /** Our LAN address (SSDP's interface, the mapping's internal client); empty: the one the router sees. */
  localAddress?: string;
  /** NAT-PMP: the router's address; empty: the default route's gateway. */
  natpmpGateway?: string;
  /** How often the mapping and the router's public address are asked again (default 60 s). */
  checkEveryMs?: number;
}

export interface PortMappingState {
  state: 'pending' | 'ok' | 'failed';
  /** Which protocol holds it; null before the first answer. */
  kind: 'upnp' | 'natpmp' | null;
  /** Who answered: the device URL or the router's address. */
  gateway: string;
  externalPort: number | null;
  /** The router's public address ('' when it did not say). */
  externalAddress: string;
  /** Why it failed; null when it did not. */
  reason: Msg | null;
  /** When it was last asked (ms). */
  checked: number;
}

export interface PortMapping {
  state(): PortMappingState;
  /** Called after every check whose outcome differs from the one before (the state, port or address). Returns the unsubscribe. */
  onChange(listener: (now: PortMappingState) => void): () => void;
  /** Asks now; resolves with the outcome. */
  check(): Promise<PortMappingState>;
  /** Removes it from the router (bounded wait) and stops asking. */
  close(): Promise<void>;
}

export interface PortMappingsService {
  keep(req: PortMappingRequest): PortMapping;
}
