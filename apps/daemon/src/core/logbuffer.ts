/** Bounded, in order, with strictly increasing timestamps so `pre` never skips or repeats a line. */
export class LogBuffer<T = string> {
  private entries: Array<{ timestamp: number; item: T }> = [];
  private last = 0;

  constructor(private capacity: number) {}

  push(item: T, time = Date.now()): void {
    this.last = Math.max(time, this.last + 1);
    this.entries.push({ timestamp: this.last, item });
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
  }

  since(pre: number): Array<{ timestamp: number; item: T }> {
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
