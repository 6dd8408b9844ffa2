// The Node options of the daemon, from its build (apps/daemon/src/nodeoptions.ts is the one place
// they are written): scripts run after `build()`, so the built file is there.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from './bootstrap.mjs';

export const { DAEMON_NODE_OPTIONS } = await import(pathToFileURL(join(root, 'apps/daemon/dist/nodeoptions.js')).href);

/** NODE_OPTIONS for the daemon's process: ours first, what the user set after (theirs win). */
export function daemonNodeOptions(userOptions = '') {
  return [DAEMON_NODE_OPTIONS, userOptions].filter(Boolean).join(' ');
}
