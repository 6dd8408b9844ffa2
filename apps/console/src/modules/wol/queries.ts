/** The Wake-on-LAN resources: devices change only when the user acts, so nothing is polled. */
import { wolRoutes } from '@lucky/contracts';
import { ruleQueries } from '../../kit/rule-list/ruleQueries';

export const wolQueries = ruleQueries('wol', wolRoutes);
