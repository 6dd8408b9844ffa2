/**
 * What the program log dialog keeps between polls (spec section 4): the last starttime seen, the
 * newest timestamp (`pre` of the next request) and the lines. A new starttime means the daemon
 * restarted: the text starts over.
 */
import type { LogEntry } from '@lucky/contracts';

/** Lines kept in the dialog; older ones scroll away so a long-open dialog stays light. */
export const MAX_LINES = 5000;

export interface LogState {
  starttime: number | null;
  pre: number;
  lines: string[];
}

export const initialLogState: LogState = { starttime: null, pre: 0, lines: [] };

export function applyLogResponse(state: LogState, res: { starttime: number; logs: LogEntry[] }): LogState {
  const restarted = state.starttime !== null && res.starttime !== state.starttime;
  const base = restarted ? initialLogState : state;
  if (res.logs.length === 0 && !restarted && state.starttime !== null) return state;
  let lines = res.logs.length ? [...base.lines, ...res.logs.map((l) => l.log)] : base.lines;
  if (lines.length > MAX_LINES) lines = lines.slice(lines.length - MAX_LINES);
  const newest = res.logs.reduce((m, l) => Math.max(m, l.timestamp), restarted ? 0 : base.pre);
  return { starttime: res.starttime, pre: newest, lines };
}
