/**
 * Build-time settings (vite `VITE_*` variables). The remote-info hosts can be pointed elsewhere, or
 * emptied (`VITE_LUCKY_INFO_HOSTS=none`) for builds that must never leave the machine.
 */
const env = import.meta.env as Record<string, string | undefined>;

function list(value: string | undefined, fallback: string[]): string[] {
  if (value === undefined || value.trim() === '') return fallback;
  if (value.trim() === 'none') return [];
  return value
    .split(',')
    .map((s) => s.trim().replace(/\/+$/, ''))
    .filter(Boolean);
}

/** Primary first: the probe favours it by delaying the others (spec section 4). */
export const INFO_HOSTS: string[] = list(env.VITE_LUCKY_INFO_HOSTS, [
  'https://lucky666.cn',
  'https://release.lucky666.cn',
  'https://lucky666.cn:16666',
]);

/** Where the top bar's title leads. */
export const PROJECT_SITE: string = env.VITE_LUCKY_SITE || 'https://github.com/gdy666/lucky';
