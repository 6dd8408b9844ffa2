/**
 * A task's sync state: what the engine keeps (messages as keys and values) and what the list shows
 * (rendered in the reader's language). Light on purpose: the module's index imports it.
 */
import { renderMsg, type DdnsSyncState, type DdnsSyncStatus, type DdnsTask, type Lang, type Msg } from '@lucky/contracts';

export type Family = 'ipv4' | 'ipv6';
export type AddressType = 'A' | 'AAAA';
export const TYPE_OF: Record<Family, AddressType> = { ipv4: 'A', ipv6: 'AAAA' };

export interface RecordState {
  domain: string;
  type: AddressType;
  status: DdnsSyncStatus;
  ip: string;
  /** Why it failed, or what was done ("created"); null when there is nothing to say. */
  reason: Msg | null;
  at: number;
}

/** The figures of a running task: its records and the task's overall status (the worst of them). */
export interface DdnsFigures {
  status: DdnsSyncStatus;
  ipv4: string;
  ipv6: string;
  lastCheck: number | null;
  lastSync: number | null;
  summary: Msg | null;
  records: RecordState[];
  /** Records synced since the task started, by the status each run left them in (metrics). */
  syncs: Partial<Record<DdnsSyncStatus, number>>;
}

export function familiesOf(task: DdnsTask): Family[] {
  return task.recordType === 'both' ? ['ipv4', 'ipv6'] : task.recordType === 'A' ? ['ipv4'] : ['ipv6'];
}

/** The state of a task the engine is not running: switched off, or on but not started (yet). */
export function idleFigures(task: DdnsTask): DdnsFigures {
  const status: DdnsSyncStatus = task.enable ? 'syncPaused' : 'syncStopped';
  const records = familiesOf(task).flatMap((f) => task.domains.map((domain) => ({ domain, type: TYPE_OF[f], status, ip: '', reason: null, at: 0 })));
  return { status, ipv4: '', ipv6: '', lastCheck: null, lastSync: null, summary: null, records, syncs: {} };
}

export function presentSync(f: DdnsFigures, lang: Lang): DdnsSyncState {
  const text = (m: Msg | null) => (m ? renderMsg(lang, m) : '');
  return {
    status: f.status,
    ipv4: f.ipv4,
    ipv6: f.ipv6,
    lastCheck: f.lastCheck,
    lastSync: f.lastSync,
    message: text(f.summary),
    records: f.records.map((r) => ({ domain: r.domain, type: r.type, status: r.status, ip: r.ip, message: text(r.reason), at: r.at })),
  };
}
