/** Scheduled tasks: the list follows runs (next time, running, last result) while the page is open. */
import { cronRoutes } from '@lucky/contracts';
import { ruleQueries } from '../../kit/rule-list/ruleQueries';

export const cronQueries = ruleQueries('cron', cronRoutes, { listMs: 3000, logMs: 3000 });
