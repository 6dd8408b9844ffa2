/**
 * Shutting a device down: its command run here (lib/command.ts: the whole process group killed at
 * the timeout, output bounded), or its URL called through the `webhooks` service (the DDNS
 * webhook's variables). The result says how it ended (exit code or HTTP status) with the output;
 * the device's log keeps a line of it. One shutdown of a device at a time.
 */
import { NO_PROXY, Ret, type Msg, type Webhook, type WolDevice } from '@lucky/contracts';
import { AppError, fail } from '../../core/envelope.js';
import type { StoredRule } from '../../core/rulestore.js';
import { runCommand, type CommandEnd } from '../../lib/command.js';
import type { WolContext } from './index.js';

/** Bytes of a shutdown's output kept (its beginning and its end). */
export const SHUTDOWN_OUTPUT_BYTES = 16 * 1024;
/** Characters of the output the device's log line keeps. */
const LOG_OUTPUT_CHARS = 300;
const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export interface ShutdownResult {
  ok: boolean;
  /** How it ended: the exit code, the signal, the timeout, the HTTP status… */
  msg: Msg;
  exitCode: number | null;
  httpStatus: number | null;
  output: string;
  truncated: boolean;
}

function endMsg(end: CommandEnd): Msg {
  switch (end.kind) {
    case 'exit':
      return { key: 'wolShutExit', vars: { code: end.code } };
    case 'signal':
      return { key: 'wolShutSignal', vars: { signal: end.signal } };
    case 'timeout':
      return { key: 'wolShutTimeout', vars: { seconds: end.seconds } };
    case 'stopped':
    case 'failed':
      return { key: 'wolShutCantRun', vars: { detail: end.kind === 'failed' ? end.detail : 'stopped' } };
  }
}

const busy = new WeakMap<object, Set<string>>();

async function run(device: StoredRule<WolDevice>, mod: WolContext): Promise<ShutdownResult> {
  const d = device.data;
  const s = d.shutdown;
  if (s.kind === 'command') {
    const env: Record<string, string> = { PATH, ...(mod.env.childEnv ?? {}), LUCKY_DEVICE: d.name, LUCKY_DEVICE_KEY: device.key, LUCKY_MAC: d.macs[0] ?? '', LUCKY_HOST: d.checkHost };
    const r = await runCommand({ line: s.command, cwd: mod.dataDir, env, timeoutMs: s.timeout * 1000, maxOutput: SHUTDOWN_OUTPUT_BYTES });
    return { ok: r.ok, msg: endMsg(r.end), exitCode: r.end.kind === 'exit' ? r.end.code : null, httpStatus: null, output: r.output, truncated: r.truncated };
  }
  const hook: Webhook = { enable: true, preset: 'custom', url: s.url, method: s.method, headers: [], body: s.body, successCheck: { enable: false, text: '' }, proxy: NO_PROXY };
  const values = { deviceName: d.name, deviceKey: device.key, mac: d.macs[0] ?? '', host: d.checkHost };
  const r = await mod.services.webhooks.call(hook, values, { timeoutMs: s.timeout * 1000 });
  if (!r) throw new Error('webhook switched off');
  const body = r.body.slice(0, SHUTDOWN_OUTPUT_BYTES);
  return {
    ok: r.success,
    msg: r.success ? { key: 'wolShutHttp', vars: { status: r.status } } : { key: 'wolShutUrlFailed', vars: { reason: r.reason } },
    exitCode: null,
    httpStatus: r.status || null,
    output: body,
    truncated: r.body.length > body.length,
  };
}

/** Shuts the device down and logs how it went; refused (ret 1/6) when it has no shutdown, is switched off or is being shut down. */
export async function shutdownDevice(device: StoredRule<WolDevice>, mod: WolContext): Promise<ShutdownResult> {
  if (!device.data.enable) throw fail(Ret.failed, 'ruleSwitchedOff');
  if (device.data.shutdown.kind === 'none') throw fail(Ret.badRequest, 'wolNoShutdown');
  let running = busy.get(mod.rules);
  if (!running) busy.set(mod.rules, (running = new Set()));
  if (running.has(device.key)) throw fail(Ret.failed, 'wolShutdownBusy');
  running.add(device.key);
  try {
    const r = await run(device, mod);
    mod.rules.logs.add(device.key, { key: r.ok ? 'wolShutdownDone' : 'wolShutdownFailed', vars: { detail: r.msg } });
    const out = r.output.trim();
    if (out) mod.rules.logs.add(device.key, { key: 'wolShutdownOutput', vars: { output: out.length > LOG_OUTPUT_CHARS ? `${out.slice(0, LOG_OUTPUT_CHARS)}…` : out } });
    return r;
  } catch (err) {
    if (err instanceof AppError) throw err;
    const detail = (err as Error).message;
    mod.rules.logs.add(device.key, { key: 'wolShutdownFailed', vars: { detail } });
    throw new AppError(Ret.failed, 'wolShutdownFailed', { detail });
  } finally {
    running.delete(device.key);
  }
}

/** The `actions` service's "shutdown": what happened as a message, a failure thrown with it. */
export async function shutdownOperation(device: StoredRule<WolDevice>, mod: WolContext): Promise<Msg> {
  const r = await shutdownDevice(device, mod);
  if (!r.ok) throw new AppError(Ret.failed, 'wolShutdownFailed', { detail: r.msg });
  return r.msg;
}
