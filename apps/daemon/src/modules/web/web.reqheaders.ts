/**
 * Headers of a client's request that the site itself sets for the app (the portal's user, a forward
 * authorizer's answer): every one of those names the client sent is dropped, then ours are added.
 * Rewritten in place, in `rawHeaders` (what the proxy copies) and `headers` alike.
 */
import type { IncomingMessage } from 'node:http';

/** `drop`: lower-case names; `add`: [name, value, ...]. */
export function setRequestHeaders(req: IncomingMessage, drop: readonly string[], add: readonly string[]): void {
  if (drop.length === 0 && add.length === 0) return;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    if (drop.includes(raw[i]!.toLowerCase())) {
      raw.splice(i, 2);
      i -= 2;
    }
  }
  for (const name of drop) delete req.headers[name];
  for (let i = 0; i < add.length; i += 2) {
    const name = add[i]!;
    const value = add[i + 1]!;
    raw.push(name, value);
    const lower = name.toLowerCase();
    const had = req.headers[lower];
    req.headers[lower] = had === undefined ? value : `${String(had)}, ${value}`;
  }
}
