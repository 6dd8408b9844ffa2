/** The certificates resources: rules change only when the user acts. */
import { acmeRoutes } from '@lucky/contracts';
import { ruleQueries } from '../../kit/rule-list/ruleQueries';

export const acmeQueries = ruleQueries('acme', acmeRoutes);
