/** A byte-bounded LRU of proxied GET answers, with per-entry expiry. */

export interface CachedResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
  expires: number;
}

export class ResponseCache {
  private map = new Map<string, CachedResponse>();
  private bytes = 0;

  constructor(
    readonly maxBytes: number,
    readonly maxEntryBytes: number,
    readonly ttlMs: number,
  ) {}

  get size(): number {
    return this.bytes;
  }

  get(key: string, now = Date.now()): CachedResponse | undefined {
    const e = this.map.get(key);
    if (!e) return undefined;
    if (e.expires <= now) {
      this.delete(key);
      return undefined;
    }
    // Refresh its place in the LRU order.
    this.map.delete(key);
    this.map.set(key, e);
    return e;
  }

  set(key: string, e: CachedResponse): void {
    const size = e.body.length + 256;
    if (e.body.length > this.maxEntryBytes || size > this.maxBytes) return;
    this.delete(key);
    while (this.bytes + size > this.maxBytes) {
      const oldest = this.map.keys().next();
      if (oldest.done) break;
      this.delete(oldest.value);
    }
    this.map.set(key, e);
    this.bytes += size;
  }

  delete(key: string): void {
    const e = this.map.get(key);
    if (!e) return;
    this.map.delete(key);
    this.bytes -= e.body.length + 256;
  }
}

/** The lifetime a response allows, or 0 when it must not be kept. */
export function cacheLifetime(
  status: number,
  headers: Record<string, string | string[] | undefined>,
  defaultMs: number,
): number {
  if (status !== 200) return 0;
  if (headers['set-cookie'] !== undefined) return 0;
  // The key holds host, path and Accept-Encoding; an answer that varies on anything else is not kept.
  const vary = headers.vary;
  if (vary !== undefined) {
    const names = (Array.isArray(vary) ? vary.join(',') : vary).toLowerCase().split(',').map((s) => s.trim()).filter(Boolean);
    if (names.some((n) => n !== 'accept-encoding' && n !== 'origin')) return 0;
  }
  const cc = String(headers['cache-control'] ?? '').toLowerCase();
  if (/(^|[,\s])(no-store|no-cache|private)\b/.test(cc)) return 0;
  const m = /s-maxage=(\d+)/.exec(cc) ?? /max-age=(\d+)/.exec(cc);
  if (m) return Number(m[1]) * 1000;
  return defaultMs;
}
