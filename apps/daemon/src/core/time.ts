/** Local time as log lines show it: `2026-11-22 01:45:28`. Its own module: serving threads use it without pino. */
export function formatTime(t: number): string {
  const d = new Date(t);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** Wall-clock ms at monotonic time 0: threads given the same anchor stamp events on one clock. */
export let clockAnchor = Date.now() - Number(process.hrtime.bigint()) / 1e6;
/** The same anchor for performance.now(), which reads the same monotonic clock without a BigInt. */
let perfAnchor = anchorForPerf();

function anchorForPerf(): number {
  return clockAnchor + Number(process.hrtime.bigint()) / 1e6 - performance.now();
}

/** A serving thread takes the coordinator's anchor (each thread's own reading of the wall clock differs by up to a millisecond). */
export function useClockAnchor(anchor: number): void {
  clockAnchor = anchor;
  perfAnchor = anchorForPerf();
}

/** A performance.now() reading as wall-clock ms with microseconds, on the clock all threads share. */
export function wallClockAt(perfNow: number): number {
  return Math.round((perfAnchor + perfNow) * 1000) / 1000;
}
