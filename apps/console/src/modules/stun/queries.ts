/** The STUN resources: the list carries live figures (public address, mappings, traffic); choices name DDNS tasks and webhook presets. */
import { stunRoutes } from '@lucky/contracts';
import { routeQuery } from '../../api/routeQuery';
import { ruleQueries } from '../../kit/rule-list/ruleQueries';

export const stunQueries = ruleQueries('stun', stunRoutes, { listMs: 2000, logMs: 1000 });

/** DDNS tasks a rule can publish through, webhook presets: asked again when a form opens. */
export const stunChoicesQuery = () => routeQuery(['stun', 'choices'], stunRoutes.choices, { staleTime: 10_000 });
