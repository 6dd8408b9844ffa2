/** What the login page asks before anyone is signed in. */
import { safeRoutes } from '@lucky/contracts';
import { routeQuery } from '../../api/routeQuery';

/** Whether to offer single sign-on, and its label; silent: a daemon that cannot say simply offers no button. */
export const oidcInfoQuery = () => routeQuery(['oidc', 'info'], safeRoutes.oidcInfo, { silent: true, staleTime: 60_000 });
