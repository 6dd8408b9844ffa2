/** Command line and environment: flags win over LUCKY_* variables; anything invalid exits with code 2. */
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { z } from 'zod';
import { ZListenHost, formatIssues } from '@lucky/contracts';

export const USAGE = `Usage: node apps/daemon/dist/main.js [--port 16601] [--host ::] [--data-dir ./data]

  --port, -p      admin console port (env LUCKY_PORT)
  --host          admin console address, :: for all (env LUCKY_HOST)
  --data-dir, -d  where lucky_base.lkcf and lucky.db live (env LUCKY_DATA_DIR, default ./data)
  --disable-2fa   switch two-factor login off (for a locked-out owner), then exit
  --reset-safe-url  remove the safe entry path, then exit
  --restore-snapshot <file|latest>
                  put a snapshot of lucky.db back (latest, or a file in <data-dir>/snapshots), then exit;
                  the lucky.db it replaces is kept as lucky.db.damaged-<time> (or .replaced-<time>)
  --version, -v   print the version
  --help, -h      this text

First start: the account is LUCKY_ADMIN_USER / LUCKY_ADMIN_PASSWORD when set, otherwise "admin"
with a random password printed once. Delete lucky_base.lkcf to reset the login and the settings.
lucky.db is copied to <data-dir>/snapshots daily, before upgrades and before restores (the last 7 kept).`;

const ZCli = z.object({
  port: z.coerce.number().int().min(1).max(65535).optional(),
  host: ZListenHost.optional(),
  dataDir: z.string().min(1),
  adminUser: z.string().trim().min(1).max(64).optional(),
  adminPassword: z.string().min(1).max(256).optional(),
  restoreSnapshot: z.string().min(1).optional(),
});
export type CliOptions = z.infer<typeof ZCli> & { help: boolean; version: boolean; disable2fa: boolean; resetSafeUrl: boolean };

export class CliError extends Error {}

export function parseCli(argv: string[], env: NodeJS.ProcessEnv): CliOptions {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string', short: 'p' },
        host: { type: 'string' },
        'data-dir': { type: 'string', short: 'd' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
        'disable-2fa': { type: 'boolean' },
        'reset-safe-url': { type: 'boolean' },
        'restore-snapshot': { type: 'string' },
      },
    }));
  } catch (err) {
    throw new CliError((err as Error).message.split('\n')[0]);
  }
  const raw = {
    port: values.port ?? (env.LUCKY_PORT || undefined),
    host: values.host ?? env.LUCKY_HOST,
    dataDir: resolve(String(values['data-dir'] ?? (env.LUCKY_DATA_DIR || './data'))),
    adminUser: env.LUCKY_ADMIN_USER || undefined,
    adminPassword: env.LUCKY_ADMIN_PASSWORD || undefined,
    restoreSnapshot: values['restore-snapshot'],
  };
  const parsed = ZCli.safeParse(raw);
  if (!parsed.success) {
    const names: Record<string, string> = {
      port: '--port / LUCKY_PORT',
      host: '--host / LUCKY_HOST',
      dataDir: '--data-dir / LUCKY_DATA_DIR',
      adminUser: 'LUCKY_ADMIN_USER',
      adminPassword: 'LUCKY_ADMIN_PASSWORD',
      restoreSnapshot: '--restore-snapshot',
    };
    const field = String(parsed.error.issues[0]?.path[0] ?? '');
    const detail = formatIssues(ZCli, raw, 'en_US').replace(/^Invalid \S+: /, '');
    throw new CliError(`invalid ${names[field] ?? field}: ${detail}`);
  }
  return {
    ...parsed.data,
    help: values.help === true,
    version: values.version === true,
    disable2fa: values['disable-2fa'] === true,
    resetSafeUrl: values['reset-safe-url'] === true,
  };
}
