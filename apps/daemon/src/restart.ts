/**
 * A graceful restart. Under a supervisor (npm start, Docker, systemd) the daemon exits with 75 and is
 * started again; on its own it starts its replacement first, which waits for the port to be free.
 */
import { spawn } from 'node:child_process';

export const RESTART_EXIT_CODE = 75;

export function detectSupervisor(env: NodeJS.ProcessEnv): string {
  if (env.LUCKY_SUPERVISOR) return env.LUCKY_SUPERVISOR;
  if (env.INVOCATION_ID) return 'systemd';
  return 'self';
}

export async function restartProcess(supervisor: string, close: () => Promise<void>): Promise<never> {
  await close();
  if (supervisor !== 'self') process.exit(RESTART_EXIT_CODE);
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    detached: true,
    stdio: 'inherit',
    env: { ...process.env, LUCKY_RESTARTED: '1' },
  });
  child.unref();
  process.exit(0);
}
