/** The storage resources: the list carries usage (refreshed: the walk of a directory ends later); the settings are the users. */
import { storageRoutes } from '@lucky/contracts';
import { ruleQueries } from '../../kit/rule-list/ruleQueries';

export const storageQueries = ruleQueries('storage', storageRoutes, { listMs: 5000, logMs: 2000 });
