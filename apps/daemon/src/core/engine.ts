/**
 * The one lifecycle every engine has. An engine never throws for a runtime problem (port in use,
 * unreachable target): it records it as the rule's status and a log line, and the daemon goes on.
 */
import type { RuleStatus } from '@lucky/contracts';
import { LogBuffer } from './logs.js';

export interface RuleEngine<R> {
  /** Starts (or restarts) the rule; resolves once it runs or has failed into an `error` status. */
  start(key: string, rule: R): Promise<void>;
  stop(key: string): Promise<void>;
  status(key: string): RuleStatus;
  /** Live connections/sessions across all rules, for /api/status. */
  connections?(): number;
  /** Stops everything (module switched off, daemon closing). */
  close(): Promise<void>;
}

/** Per-rule logs kept in memory, bounded, read incrementally like the program log. */
export class RuleLogs {
  private buffers = new Map<string, LogBuffer>();

  constructor(private capacity = 256) {}

  add(key: string, line: string): void {
    let b = this.buffers.get(key);
    if (!b) this.buffers.set(key, (b = new LogBuffer(this.capacity)));
    b.push(line);
  }

  since(key: string, pre = 0) {
    return this.buffers.get(key)?.since(pre) ?? [];
  }

  drop(key: string): void {
    this.buffers.delete(key);
  }
}
