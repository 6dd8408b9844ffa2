/** A fixed-capacity ring of the latest entries (the access log); capacity 0 keeps nothing. */
export class AccessRing<T> {
  private buf: T[] = [];
  private head = 0;

  constructor(private cap: number) {}

  get capacity(): number {
    return this.cap;
  }

  get size(): number {
    return this.buf.length;
  }

  /**
   * When the ring is full, the entry the next push drops. Refilling it and pushing it back saves an
   * allocation per entry, and with it the promotion of short-lived entries into the old generation
   * (V8 pretenures an allocation site whose objects mostly survive, as a full ring's do).
   */
  evictee(): T | undefined {
    return this.cap > 0 && this.buf.length >= this.cap ? this.buf[this.head] : undefined;
  }

  push(entry: T): void {
    if (this.cap <= 0) return;
    if (this.buf.length < this.cap) this.buf.push(entry);
    else {
      this.buf[this.head] = entry;
      this.head = (this.head + 1) % this.cap;
    }
  }

  /** Oldest first. */
  all(): T[] {
    return this.head === 0 ? this.buf.slice() : [...this.buf.slice(this.head), ...this.buf.slice(0, this.head)];
  }

  /** The newest `n`, oldest of them first. */
  latest(n: number): T[] {
    const len = this.buf.length;
    const out: T[] = [];
    for (let i = Math.max(0, len - n); i < len; i++) out.push(this.buf[(this.head + i) % len]!);
    return out;
  }

  resize(cap: number): void {
    if (cap === this.cap) return;
    const keep = this.all();
    this.cap = cap;
    this.buf = cap > 0 ? keep.slice(Math.max(0, keep.length - cap)) : [];
    this.head = 0;
  }
}
