/** A rule's figures as the API shows them. */
import { renderMsg, type Lang, type StunFigures } from '@lucky/contracts';
import type { RunFigures } from './stun.run.js';

/** The list item's figures, the mapping reasons in the reader's language. */
export function present(f: RunFigures | undefined, localPort: number | null, lang: Lang): StunFigures {
  const t = f?.traffic;
  return {
    publicAddr: f?.publicAddr ?? null,
    localPort: f?.localPort ?? localPort,
    server: f?.server ?? null,
    lastChange: f?.lastChange ?? null,
    lastCheck: f?.lastCheck ?? null,
    changes: f?.changes ?? 0,
    mappings: (f?.mappings ?? []).map((m) => ({ ...m, reason: m.reason ? renderMsg(lang, m.reason) : '' })),
    connections: t?.connections ?? 0,
    sessions: t?.sessions ?? 0,
    totalConnections: t?.totalConnections ?? 0,
    bytesIn: t?.bytesIn ?? 0,
    bytesOut: t?.bytesOut ?? 0,
    refusedByFilter: t?.refusedByFilter ?? 0,
    refusedByLimit: t?.refusedByLimit ?? 0,
  };
}

