/** What every storage service's screen reads from storage management. */
import { storageRoutes } from '@lucky/contracts';
import { routeQuery } from '../../api/routeQuery';

/** GET /api/storage/rules, under the storage screen's own key: names for the mounts, choices for the form. */
export const storageChoicesQuery = () => routeQuery(['storage', 'rules'], storageRoutes.list, { staleTime: 5000 });
