/** The port forwarding resources: the list carries live figures (connections, sessions, bytes) and engine states. */
import { portforwardRoutes } from '@lucky/contracts';
import { ruleQueries } from '../../kit/rule-list/ruleQueries';

export const pfQueries = ruleQueries('portforward', portforwardRoutes, { listMs: 2000, logMs: 1000 });
