/**
 * Each rule's own log: a bounded ring of messages (key and values, never rendered text), read
 * incrementally like the program log and rendered in the reader's language.
 */
import { renderMsg, type Lang, type LogEntry, type Msg } from '@lucky/contracts';
import { LogBuffer } from './logbuffer.js';
import { formatTime } from './time.js';

export class RuleLog {
  private buffers = new Map<string, LogBuffer<Msg>>();

  constructor(private capacity = 256) {}

  add(key: string, line: Msg, at = Date.now()): void {
    let b = this.buffers.get(key);
    if (!b) this.buffers.set(key, (b = new LogBuffer<Msg>(this.capacity)));
    b.push(line, at);
  }

  /** Keeps `lines` lines of this rule (the default when fewer are asked). */
  resize(key: string, lines: number): void {
    const capacity = Math.max(this.capacity, Math.floor(lines));
    let b = this.buffers.get(key);
    if (!b) this.buffers.set(key, (b = new LogBuffer<Msg>(capacity)));
    b.resize(capacity);
  }

  since(key: string, pre: number, lang: Lang): LogEntry[] {
    return (this.buffers.get(key)?.since(pre) ?? []).map((e) => ({ timestamp: e.timestamp, log: `${formatTime(e.timestamp)} ${renderMsg(lang, e.item)}` }));
  }

  drop(key: string): void {
    this.buffers.delete(key);
  }
}
