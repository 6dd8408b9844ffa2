/**
 * A rule's figures on the Node path: its request durations counted into the fixed buckets (the
 * edge counts the same ones in C), and figures of several threads or drains added up. Loaded by
 * serving threads: nothing here may import zod.
 */
import { WEB_DURATION_BUCKETS } from '@lucky/contracts/runtime';
import type { WebFigures } from '@lucky/contracts';

export type Durations = NonNullable<WebFigures['duration']>;

export const zeroDurations = (): Durations => ({ counts: new Array<number>(WEB_DURATION_BUCKETS.length + 1).fill(0), seconds: 0 });

/** One request that took `seconds`. */
export function countDuration(d: Durations, seconds: number): void {
  let b = 0;
  while (b < WEB_DURATION_BUCKETS.length && seconds > WEB_DURATION_BUCKETS[b]!) b++;
  d.counts[b]!++;
  d.seconds += seconds;
}

function addDurations(a: Durations | undefined, b: Durations | undefined): Durations | undefined {
  if (!a || !b) return a ?? b;
  return { counts: a.counts.map((n, i) => n + (b.counts[i] ?? 0)), seconds: a.seconds + b.seconds };
}

export function addFigures(a: WebFigures, b: WebFigures): WebFigures {
  const codes = { ...a.codes };
  for (const [c, n] of Object.entries(b.codes)) codes[c] = (codes[c] ?? 0) + n;
  const sum: WebFigures = { requests: a.requests + b.requests, bytesIn: a.bytesIn + b.bytesIn, bytesOut: a.bytesOut + b.bytesOut, connections: a.connections + b.connections, codes };
  const duration = addDurations(a.duration, b.duration);
  if (duration) sum.duration = duration;
  if (a.engine || b.engine) sum.engine = { native: (a.engine?.native ?? 0) + (b.engine?.native ?? 0), node: (a.engine?.node ?? 0) + (b.engine?.node ?? 0) };
  return sum;
}
