/**
 * The engine as the daemon runs it, without HTTP: rules kept in a map and brought in line by the
 * real rule runtime, with a real port registry and rule log. Statuses, log lines, in-place edits
 * and retries are the ones a user sees.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderMsgs, ZPortforwardConfigure, type Lang, type PortforwardConfigure, type PortforwardRule, type PortforwardStats } from '@lucky/contracts';
import { createProgramLog, sayer } from '../../../core/logs.js';
import { PortRegistry } from '../../../core/ports.js';
import { RuleLog } from '../../../core/rulelog.js';
import { RuleRuntime } from '../../../core/ruleruntime.js';
import { testCertificates } from '../../../test/certificates.js';
import { PortforwardEngine } from '../portforward.engine.js';
import { listenEndpoints } from '../portforward.plan.js';

export function engineHarness(nativeRelay: boolean) {
  const rules = new Map<string, PortforwardRule>();
  let settings = ZPortforwardConfigure.parse({});
  // Listeners that could not open are tried again soon, so that a test sees it happen.
  const dir = mkdtempSync(join(tmpdir(), 'lucky-pf-'));
  // The certificate store on a database of its own, for rules that name its certificates.
  const certificates = testCertificates(dir);
  const engine = new PortforwardEngine({ settings, nativeRelay, retryListenMs: 300, certificates: certificates.service });
  const logs = new RuleLog(1024);
  const ports = new PortRegistry();
  const program = createProgramLog({ level: 2, capacity: 256 });
  const runtime = new RuleRuntime<PortforwardRule, PortforwardConfigure, PortforwardStats>({
    module: 'portforward',
    store: {
      get: (key) => (rules.has(key) ? { data: rules.get(key)! } : undefined),
      list: () => [...rules].map(([key, data]) => ({ key, data })),
    },
    settings: () => settings,
    engine: async () => engine,
    listens: listenEndpoints,
    ports,
    say: sayer(program.logger),
    logs,
  });
  const ready = runtime.startAll();

  return {
    engine,
    certificates: certificates.service,
    ports,
    program,
    /** Starts the rule, or applies the new version of a running one. */
    async start(key: string, rule: PortforwardRule): Promise<void> {
      await ready;
      rules.set(key, rule);
      await runtime.apply(key);
    },
    async stop(key: string): Promise<void> {
      rules.delete(key);
      await runtime.apply(key);
    },
    /** The status with its message in `lang`. */
    status(key: string, lang: Lang = 'en_US') {
      const s = runtime.status(key);
      return { state: s.state, message: s.parts ? renderMsgs(lang, s.parts) : s.message };
    },
    async stats(key: string): Promise<PortforwardStats> {
      const f = await runtime.figures(key);
      if (!f) throw new Error(`rule ${key} is not running`);
      return f;
    },
    /** The rule's log lines without their time, in `lang`. */
    logs(key: string, lang: Lang = 'en_US'): string[] {
      return logs.since(key, 0, lang).map((l) => l.log.replace(/^\S+ \S+ /, ''));
    },
    async configure(next: Partial<PortforwardConfigure>): Promise<void> {
      settings = ZPortforwardConfigure.parse(next);
      await runtime.configure(settings);
    },
    async close(): Promise<void> {
      await runtime.stopAll();
      certificates.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
