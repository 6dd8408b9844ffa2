/** The `stunAddresses` service: what the running rules learnt, read from their figures. */
import type { StunAddress, StunAddressesService } from '../../core/services/stunAddresses.js';
import type { StunEngine } from './stun.engine.js';

export function stunAddresses(engine: StunEngine): StunAddressesService {
  const current = (key: string): StunAddress | null => {
    const f = engine.run(key)?.figures();
    if (!f?.publicAddr || f.localPort === null) return null;
    const i = f.publicAddr.lastIndexOf(':');
    return {
      ip: f.publicAddr.slice(0, i),
      port: Number(f.publicAddr.slice(i + 1)),
      localPort: f.localPort,
      mappings: f.mappings.map((m) => ({ kind: m.kind, state: m.state, externalPort: m.externalPort, reason: m.reason })),
      checked: f.lastCheck ?? 0,
    };
  };
  return {
    current,
    onChange: (listener) =>
      engine.onChanged((key) => {
        const now = current(key);
        if (now) listener(key, now);
      }),
  };
}
