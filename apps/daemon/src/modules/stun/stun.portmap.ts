/** What the engine asks of a router, whichever protocol (UPnP IGD or NAT-PMP) carries it. */

export interface MapRequest {
  protocol: 'udp' | 'tcp';
  internalPort: number;
  /** The external port wished for; a router may give another (see MapResult). */
  externalPort: number;
  /** Seconds; 0 asks for a permanent mapping where the protocol allows it. */
  lifetimeSec: number;
  description: string;
}

export interface MapResult {
  /** Who answered: the device URL (UPnP) or the gateway's address (NAT-PMP). */
  gateway: string;
  externalPort: number;
  /** Seconds the router keeps it; 0 = permanent. */
  lifetimeSec: number;
}

export interface PortMapper {
  readonly kind: 'upnp' | 'natpmp';
  map(req: MapRequest): Promise<MapResult>;
  unmap(req: { protocol: 'udp' | 'tcp'; externalPort: number; internalPort: number }): Promise<void>;
  externalAddress(): Promise<string>;
  /** Drops what the mapper holds (sockets, the discovered gateway); mappings stay on the router. */
  close(): void;
}
