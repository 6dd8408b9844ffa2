/** The daemon process: flags → runtime → listen → engines; graceful close on signals. */
import { CliError, USAGE, parseCli } from './cli.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BASE_CONFIG_FILE, BaseConfigError, BaseConfigStore, readBaseConfigFile } from './core/baseconfig.js';
import { DB_FILE, DamagedDbError } from './core/db.js';
import { restartProcess } from './restart.js';
import { sayer } from './core/logs.js';
import { openRuntime, type Runtime } from './runtime.js';
import { VERSION } from './version.js';

function banner(account: string, password: string): string {
  const lines = [
    'Lucky first start: an admin account was created.',
    `  account:  ${account}`,
    `  password: ${password}`,
    'It is shown only this once. Change it under Settings after logging in.',
  ];
  const width = Math.max(...lines.map((l) => l.length)) + 4;
  const bar = '*'.repeat(width);
  return ['', bar, ...lines.map((l) => `* ${l.padEnd(width - 4)} *`), bar, ''].join('\n');
}

/** Quoted for a POSIX shell when needed, so that the printed command can be pasted as it is. */
function shellWord(w: string): string {
  return /^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}

async function main(): Promise<void> {
  let cli;
  try {
    cli = parseCli(process.argv.slice(2));
  } catch (err) {
    if (err instanceof CliError) {
      process.stderr.write(`lucky: ${err.message} (see --help)\n`);
      process.exit(2);
    }
    throw err;
  }
  if (cli.help) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  if (cli.version) {
    process.stdout.write(VERSION + '\n');
    return;
  }

  if (cli.disable2fa || cli.resetSafeUrl) {
    // Recovery switches for a locked-out owner: edit lucky_base.lkcf and exit (stop Lucky first).
    const file = join(cli.dataDir, BASE_CONFIG_FILE);
    if (!existsSync(file)) {
      process.stdout.write(`lucky: ${file} does not exist; nothing to change\n`);
      return;
    }
    try {
      const store = new BaseConfigStore(file, readBaseConfigFile(file));
      if (cli.disable2fa) store.update({ TwoFASecret: '', TwoFARecoveryHashes: [] });
      if (cli.resetSafeUrl) store.update({ SafeURL: '' });
    } catch (err) {
      process.stderr.write(`lucky: ${(err as Error).message}\n`);
      process.exit(1);
    }
    if (cli.disable2fa) process.stdout.write('lucky: two-factor login is off\n');
    if (cli.resetSafeUrl) process.stdout.write('lucky: the safe entry path is removed\n');
    return;
  }

  if (cli.restoreSnapshot) {
    // Then exit like the other recovery switches: left in a service's command line, it must not
    // roll the database back at every start.
    const { restoreSnapshot, RestoreError } = await import('./core/snapshotrestore.js');
    try {
      const r = restoreSnapshot(cli.dataDir, cli.restoreSnapshot);
      process.stdout.write(`lucky: ${join(cli.dataDir, DB_FILE)} restored from ${r.snapshot}\n`);
      if (r.aside.length) process.stdout.write(`lucky: the ${r.damaged ? 'damaged' : 'replaced'} database is kept as ${r.aside.join(', ')}\n`);
      process.stdout.write('lucky: start Lucky again without --restore-snapshot\n');
    } catch (err) {
      if (!(err instanceof RestoreError)) throw err;
      process.stderr.write(`lucky: cannot restore: ${err.message}\n`);
      process.exit(1);
    }
    return;
  }

  const supervisor = cli.supervisor;
  let runtime: Runtime;
  let restarting = false;
  try {
    runtime = await openRuntime({
      dataDir: cli.dataDir,
      ...(cli.port !== undefined ? { port: cli.port } : {}),
      ...(cli.host !== undefined ? { host: cli.host } : {}),
      ...(cli.adminUser ? { initialAccount: cli.adminUser } : {}),
      ...(cli.adminPassword ? { initialPassword: cli.adminPassword } : {}),
      out: (line) => process.stdout.write(line + '\n'),
      jsonLogs: cli.jsonLogs,
      ...(cli.consoleDir ? { consoleDir: cli.consoleDir } : {}),
      env: cli.env,
      supervisor,
      restart: () => {
        if (restarting) return;
        restarting = true;
        void restartProcess(supervisor, () => runtime.close());
      },
    });
  } catch (err) {
    if (err instanceof BaseConfigError) {
      process.stderr.write(`lucky: refusing to start: ${err.message}\n`);
      process.exit(1);
    }
    if (err instanceof DamagedDbError) {
      const command = ['node', process.argv[1] ?? 'main.js', '--data-dir', cli.dataDir].map(shellWord).join(' ');
      const { damagedDbAdvice } = await import('./core/snapshotrestore.js');
      process.stderr.write(damagedDbAdvice(err, cli.dataDir, command));
      process.exit(1);
    }
    process.stderr.write(`lucky: cannot start: ${(err as Error).message}\n`);
    process.exit(1);
  }
  const log = runtime.programLog.logger;
  const say = sayer(log);
  say.info({ key: 'logStarting', vars: { version: VERSION, node: process.versions.node, dataDir: cli.dataDir } }, { supervisor });
  if (runtime.generatedPassword) {
    // Straight to stdout, not through the logger: the program log in the console must not hold it.
    process.stdout.write(banner(runtime.config.get().AdminAccount, runtime.generatedPassword) + '\n');
    say.warn({ key: 'logPasswordPrinted' });
  } else if (runtime.created) {
    say.info({ key: 'logAccountFromEnv', vars: { account: runtime.config.get().AdminAccount } });
  }

  try {
    await runtime.listen(cli.restarted ? 15_000 : 0);
  } catch (err) {
    say.error({ key: 'logListenFailed', vars: { detail: (err as Error).message } }, { err });
    process.stderr.write(`lucky: ${(err as Error).message}\n`);
    await runtime.close();
    process.exit(1);
  }

  const shutdown = (signal: string) => {
    say.info({ key: 'logShuttingDown', vars: { signal } });
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    void runtime.close().then(() => process.exit(0));
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  // One faulty engine callback must not take every other rule down with it.
  const uncaught = (err: unknown) => say.error({ key: 'logUncaught', vars: { detail: (err as Error)?.message ?? String(err) } }, { err });
  process.on('uncaughtException', uncaught);
  process.on('unhandledRejection', uncaught);
}

void main();
