/**
 * The `portMappings` service: one port forward kept on the router for another module. UPnP IGD is
 * tried first, NAT-PMP when UPnP finds no router (or fails); the protocol that answered is kept
 * until it fails. Every check asks for the mapping again (AddPortMapping of the same mapping is a
 * refresh; a router restarted or renumbered lost it) and for the public address, so a new address
 * is seen within one check.
 */
import type { Msg } from '@lucky/contracts';
import type { PortMapping, PortMappingRequest, PortMappingState, PortMappingsService } from '../../core/services/portMappings.js';
import { msgOf } from '../../lib/msgerror.js';
import { defaultGateway } from './stun.gateway.js';
import { natpmpMapper } from './stun.natpmp.js';
import type { PortMapper } from './stun.portmap.js';
import { upnpMapper } from './stun.upnp.js';

/** Asked of the router: twice the check interval, so one missed check does not drop it. */
const leaseOf = (everyMs: number) => Math.max(120, Math.round((2 * everyMs) / 1000));
const UNMAP_WAIT_MS = 3000;

function keep(req: PortMappingRequest): PortMapping {
  const everyMs = req.checkEveryMs ?? 60_000;
  const mappers: PortMapper[] = [
    upnpMapper({ gatewayUrl: req.upnpUrl || undefined, localAddress: req.localAddress || undefined }),
    natpmpMapper({ gateway: req.natpmpGateway || defaultGateway() || undefined, attempts: 4 }),
  ];
  let current: PortMapper | null = null;
  let state: PortMappingState = { state: 'pending', kind: null, gateway: '', externalPort: null, externalAddress: '', reason: null, checked: 0 };
  const listeners = new Set<(now: PortMappingState) => void>();
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  let busy: Promise<PortMappingState> | null = null;

  const set = (next: PortMappingState) => {
    const changed = next.state !== state.state || next.externalPort !== state.externalPort || next.externalAddress !== state.externalAddress || next.kind !== state.kind;
    state = next;
    if (changed) for (const l of listeners) l(next);
  };

  const tryOne = async (m: PortMapper): Promise<PortMappingState> => {
    const r = await m.map({ protocol: req.protocol, internalPort: req.internalPort, externalPort: req.externalPort, lifetimeSec: leaseOf(everyMs), description: req.description });
    const address = await m.externalAddress().catch(() => '');
    return { state: 'ok', kind: m.kind, gateway: r.gateway, externalPort: r.externalPort, externalAddress: address, reason: null, checked: Date.now() };
  };

  const once = async (): Promise<PortMappingState> => {
    const order = current ? [current, ...mappers.filter((m) => m !== current)] : mappers;
    const reasons: Msg[] = [];
    for (const m of order) {
      try {
        const now = await tryOne(m);
        current = m;
        return now;
      } catch (err) {
        reasons.push(msgOf(err));
      }
    }
    current = null;
    return { ...state, state: 'failed', externalPort: null, reason: reasons.length > 1 ? { key: 'msgPair', vars: { first: reasons[0]!, rest: reasons[1]! } } : reasons[0]!, checked: Date.now() };
  };

  const check = (): Promise<PortMappingState> => {
    busy ??= once()
      .then((now) => {
        if (!closed) set(now);
        return now;
      })
      .finally(() => {
        busy = null;
        if (!closed) {
          if (timer) clearTimeout(timer);
          timer = setTimeout(() => void check(), everyMs);
          timer.unref();
        }
      });
    return busy;
  };
  void check();

  return {
    state: () => state,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    check,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      listeners.clear();
      await busy?.catch(() => undefined);
      const held = current;
      const port = state.externalPort;
      if (held && port !== null) {
        const gone = held.unmap({ protocol: req.protocol, externalPort: port, internalPort: req.internalPort }).catch(() => undefined);
        await Promise.race([gone, new Promise((r) => setTimeout(r, UNMAP_WAIT_MS).unref())]);
      }
      for (const m of mappers) m.close();
    },
  };
}

export const portMappings: PortMappingsService = { keep };
