import type { LogEntry } from '@lucky/contracts';

/** Bounded, in order, with strictly increasing timestamps so `pre` never skips or repeats a line. */
export class LogBuffer {
  private entries: LogEntry[] = [];
  private last = 0;

  constructor(private capacity: number) {}

  push(log: string, time = Date.now()): void {
    this.last = Math.max(time, this.last + 1);
    this.entries.push({ timestamp: this.last, log });
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
  }

  since(pre: number): LogEntry[] {
    // Entries are sorted: search from the end, where the console's next lines are.
    let i = this.entries.length;
    while (i > 0 && this.entries[i - 1]!.timestamp > pre) i--;
    return this.entries.slice(i);
  }

  resize(capacity: number): void {
    this.capacity = capacity;
    if (this.entries.length > capacity) this.entries.splice(0, this.entries.length - capacity);
  }

  get size(): number {
    return this.entries.length;
  }
}
