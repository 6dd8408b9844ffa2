/** Names to values the way web servers pick a site or a certificate: the exact name, then the longest `*.suffix`. */

export class DomainMatcher<T> {
  private exact = new Map<string, T>();
  private wild: Array<{ suffix: string; value: T }> = [];

  /** The first value given for a name keeps it. */
  add(domain: string, value: T): void {
    const d = domain.toLowerCase();
    if (d.startsWith('*.')) {
      const suffix = d.slice(1); // ".example.com"
      if (!this.wild.some((w) => w.suffix === suffix)) this.wild.push({ suffix, value });
      this.wild.sort((a, b) => b.suffix.length - a.suffix.length);
    } else if (!this.exact.has(d)) {
      this.exact.set(d, value);
    }
  }

  /** `host` in lower case. Like nginx's server_name, `*.example.com` matches any depth below example.com, not example.com itself. */
  match(host: string): T | undefined {
    const e = this.exact.get(host);
    if (e !== undefined) return e;
    for (const w of this.wild) if (host.length > w.suffix.length && host.endsWith(w.suffix)) return w.value;
    return undefined;
  }

  get size(): number {
    return this.exact.size + this.wild.length;
  }
}
