/**
 * A real daemon with the FTP server, for the module's client tests: an FTP rule started and waited
 * for, and the real clients (lftp, curl) run as child processes with a time limit. Storages and
 * storage users come from test/storages.ts.
 */
import type { FtpRuleInput, FtpRuleView } from '@lucky/contracts';
import { freePort, startTestDaemon, type TestDaemon } from '../../../test/harness.js';
import { EN } from '../../../test/storages.js';
import { runTool, type Run } from '../../../test/tool.js';

export async function ruleView(d: TestDaemon, key: string): Promise<FtpRuleView> {
  return (await d.call<{ rule: FtpRuleView }>('GET', `/api/ftpserver/rules/${key}`, undefined, EN)).rule;
}

/** A passive range of `n` ports that are free now (on loopback), not overlapping the control port. */
export async function freeRange(n = 10): Promise<[number, number]> {
  for (;;) {
    const base = 20000 + Math.floor(Math.random() * 40000);
    const free = await Promise.all(Array.from({ length: n }, (_, i) => portFree(base + i)));
    if (free.every(Boolean)) return [base, base + n - 1];
  }
}

async function portFree(port: number): Promise<boolean> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

export async function waitState(d: TestDaemon, key: string, state: string): Promise<FtpRuleView> {
  let v = await ruleView(d, key);
  for (let i = 0; i < 400 && v.status?.state !== state; i++) {
    await new Promise((res) => setTimeout(res, 25));
    v = await ruleView(d, key);
  }
  return v;
}

/** Saves an FTP rule and waits until it serves; returns its key and port. */
export async function makeFtp(d: TestDaemon, rule: Partial<FtpRuleInput> & Pick<FtpRuleInput, 'mounts'>): Promise<{ key: string; port: number }> {
  const port = rule.port ?? (await freePort());
  const [pasvMin, pasvMax] = rule.pasvMin && rule.pasvMax ? [rule.pasvMin, rule.pasvMax] : await freeRange();
  const r = await d.call<{ key: string }>('POST', '/api/ftpserver/rules', { name: `ftp${port}`, address: '127.0.0.1', ...rule, port, pasvMin, pasvMax }, EN);
  if (r.ret !== 0) throw new Error(`ftp rule not saved: ${JSON.stringify(r)}`);
  const v = await waitState(d, r.key, 'running');
  if (v.status?.state !== 'running') throw new Error(`ftp rule not running: ${JSON.stringify(v.status)}`);
  return { key: r.key, port };
}

/** Runs a client; never rejects (the exit code and output are the test's to judge). */
export function run(cmd: string, args: string[], timeout = 60_000): Promise<Run> {
  return runTool(cmd, args, { timeout });
}

/**
 * lftp with the settings the tests rely on: passive, no retries, short timeouts, no TLS unless asked
 * (then the chain is checked against `cafile`; the name is curl's to check, lftp connects by address).
 */
export function lftp(port: number, user: [string, string] | null, script: string, o: { tls?: boolean; cafile?: string; epsv?: boolean } = {}): Promise<Run> {
  const settings = [
    'set net:max-retries 1',
    'set net:timeout 10',
    'set net:reconnect-interval-base 1',
    'set ftp:passive-mode true',
    `set ftp:prefer-epsv ${o.epsv ? 'true' : 'false'}`,
    `set ftp:ssl-allow ${o.tls ? 'true' : 'false'}`,
    ...(o.tls ? ['set ftp:ssl-force true', 'set ftp:ssl-protect-data true', 'set ssl:verify-certificate true', `set ssl:ca-file ${o.cafile ?? ''}`, 'set ssl:check-hostname false'] : []),
    'set cmd:fail-exit true',
    'set xfer:clobber true',
  ].join('; ');
  const login = user ? `-u ${user[0]},${user[1]}` : '-u anonymous,x';
  return run('lftp', ['-c', `${settings}; open ${login} -p ${port} 127.0.0.1; ${script}`]);
}

export { freePort, startTestDaemon, type Run, type TestDaemon };
