/** The limits of a forwarding rule (ZPortforwardLimits: port forwarding, STUN), as a form holds them: blank = the module's default. */
import type { PortforwardLimits } from '@lucky/contracts';
import type { Num } from './values';

export const LIMIT_FIELDS = ['tcpMaxConnections', 'udpMaxSessions', 'udpSessionTimeout', 'udpPacketSize', 'tcpIdleTimeout'] as const satisfies readonly (keyof PortforwardLimits)[];
export type LimitField = (typeof LIMIT_FIELDS)[number];
export type LimitsForm = Record<LimitField, Num>;

/** '' → null (module default); not a number → NaN so validation names the field. */
export function limitValue(v: Num): number | null {
  if (typeof v === 'number') return v;
  if (v.trim() === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : Number.NaN;
}

export function limitsToForm(l: PortforwardLimits): LimitsForm {
  const out = {} as LimitsForm;
  for (const f of LIMIT_FIELDS) out[f] = l[f] ?? '';
  return out;
}

export function limitsToBody(l: LimitsForm): PortforwardLimits {
  const out = {} as PortforwardLimits;
  for (const f of LIMIT_FIELDS) out[f] = limitValue(l[f]);
  return out;
}

export const emptyLimits = (): LimitsForm => ({ tcpMaxConnections: '', udpMaxSessions: '', udpSessionTimeout: '', udpPacketSize: '', tcpIdleTimeout: '' });
