/**
 * A graceful restart. Under a supervisor (npm start, Docker, systemd) the daemon exits with 75 and is
 * started again; on its own it starts its replacement first, which waits for the port to be free.
 */
import { spawn } from 'node:child_process';

export const RESTART_EXIT_CODE = 75;

export async function restartProcess(supervisor: string, close: () => Promise<void>): Promise<never> {
  await close();
  if (supervisor !== 'self') process.exit(RESTART_EXIT_CODE);
  const args = process.argv.slice(1).filter((a) => a !== '--restarted');
  const child = spawn(process.execPath, [...process.execArgv, ...args, '--restarted'], { detached: true, stdio: 'inherit' });
  child.unref();
  process.exit(0);
}
