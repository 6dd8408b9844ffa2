/**
 * Build-time settings (vite `VITE_*` variables). Nothing here is fetched: the console talks to the
 * daemon alone (the info feed, when an operator sets one, is read by the daemon: docs/INFO-FEED.md).
 */
const env = import.meta.env as Record<string, string | undefined>;

/** Where the top bar's title leads (a link the user may follow; never requested by the console). */
export const PROJECT_SITE: string = env.VITE_LUCKY_SITE || 'https://github.com/gdy666/lucky';
