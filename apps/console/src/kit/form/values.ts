/** How form fields hold what the contracts want as numbers and lists, and how times are shown. */

/** A NumberInput's value: a number, or the text being typed ('' when blank). */
export type Num = number | string;

/** The number typed; NaN when blank or not a number, so validation names the field. */
export const toNumber = (v: Num): number => (typeof v === 'number' ? v : v.trim() === '' ? Number.NaN : Number(v));

/** A list as a multi-line field shows it: one entry a line. */
export const joinLines = (list: readonly string[]): string => list.join('\n');

/** Local date-time to the second: 2024-05-01 08:00:00. */
export function formatTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}
