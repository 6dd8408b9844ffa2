// `npm start`: install what is missing, build, run the daemon with its embedded defaults.
// Extra arguments pass through: `npm start -- --port 8080`.
// It also supervises: when the daemon asks for a restart (exit code 75, from the console's
// restart button or an update) it is started again in the same terminal.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { build, log, root } from './lib/bootstrap.mjs';

const RESTART_EXIT_CODE = 75;
build();
const { daemonNodeOptions } = await import('./lib/daemon.mjs');

let child;
function startDaemon() {
  child = spawn(process.execPath, [join(root, 'apps/daemon/dist/main.js'), ...process.argv.slice(2)], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, LUCKY_SUPERVISOR: 'npm', NODE_OPTIONS: daemonNodeOptions(process.env.NODE_OPTIONS) },
  });
  child.on('exit', (code, signal) => {
    if (code === RESTART_EXIT_CODE) {
      log('daemon asked for a restart');
      startDaemon();
      return;
    }
    process.exit(code ?? (signal ? 1 : 0));
  });
}
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
startDaemon();
