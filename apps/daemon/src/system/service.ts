/** The systemd service: install (enabled for the next boot), uninstall, status. Only where systemd runs. */
import { execFileSync } from 'node:child_process';
import { existsSync, unlinkSync, writeFileSync } from 'node:fs';
import { DAEMON_NODE_OPTIONS } from '../nodeoptions.js';

export const UNIT_NAME = 'lucky.service';
const UNIT_PATH = `/etc/systemd/system/${UNIT_NAME}`;

export function systemdAvailable(): boolean {
  return existsSync('/run/systemd/system');
}

export function unitFile(o: { execPath: string; main: string; dataDir: string; workDir: string }): string {
  return `[Unit]
Description=Lucky network toolbox
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
WorkingDirectory=${o.workDir}
ExecStart=${o.execPath} ${o.main} --data-dir ${o.dataDir}
Environment=LUCKY_SUPERVISOR=systemd
Environment=NODE_OPTIONS=${DAEMON_NODE_OPTIONS}
# The console's restart button exits with 75; systemd starts Lucky again.
Restart=always
RestartSec=2

[Install]
WantedBy=multi-user.target
`;
}

function systemctl(...args: string[]): string {
  try {
    return execFileSync('systemctl', args, { encoding: 'utf8', timeout: 15_000 }).trim();
  } catch (err) {
    const e = err as { stdout?: string };
    return (e.stdout ?? '').trim() || 'unknown';
  }
}

export function serviceStatus(): string {
  if (!existsSync(UNIT_PATH)) return 'not-installed';
  return `${systemctl('is-enabled', UNIT_NAME)}/${systemctl('is-active', UNIT_NAME)}`;
}

export function installService(o: Parameters<typeof unitFile>[0]): void {
  writeFileSync(UNIT_PATH, unitFile(o), { mode: 0o644 });
  execFileSync('systemctl', ['daemon-reload'], { timeout: 15_000 });
  // Enabled, not started: this process holds the port now; the service takes over at the next boot.
  execFileSync('systemctl', ['enable', UNIT_NAME], { timeout: 15_000 });
}

export function uninstallService(): void {
  systemctl('disable', UNIT_NAME);
  if (existsSync(UNIT_PATH)) unlinkSync(UNIT_PATH);
  systemctl('daemon-reload');
}
