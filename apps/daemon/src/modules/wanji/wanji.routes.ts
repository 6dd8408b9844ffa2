/**
 * The module's own routes: test a device, poll all now, a device's rules, actions on a device, its
 * backup, and the fleet actions (push, compare, versions). Every call to a device goes from here
 * with its token; the browser only ever talks to this daemon. Remote actions are written to the
 * audit log, one entry per device, and to the device's log.
 */
import type { FastifyRequest } from 'fastify';
import {
  compareVersions,
  coreRoutes,
  ddnsRoutes,
  message,
  normalizePin,
  renderMsg,
  restoreSecrets,
  Ret,
  wolRoutes,
  ZWanjiDevice,
  type Lang,
  type MessageKey,
  type Msg,
  type RetCode,
  type WanjiAction,
  type wanjiContract,
  type WanjiDevice,
  type WanjiDeviceResult,
} from '@lucky/contracts';
import { actorOf } from '../../core/auth.js';
import { AppError, fail } from '../../core/envelope.js';
import type { OwnHandlers } from '../../core/module.js';
import { moduleName } from '../../core/ports.js';
import { parseOrFail } from '../../core/routes.js';
import type { StoredRule } from '../../core/rulestore.js';
import { certificateFacts } from '../../lib/tls/pem.js';
import { msgOf } from '../../lib/msgerror.js';
import type { WanjiContext } from './index.js';
import { compareRules, contractOf, eachBounded, pushRule, remoteRules } from './wanji.fleet.js';
import { RemoteFailure, remoteFailure, type DeviceLink } from './wanji.remote.js';

/** Calls made while someone waits: under the console's 5 s request timeout. */
const INTERACTIVE_MS = 4000;
/** Several devices at once: each result in by then, or "not done within". */
const FLEET_DEADLINE_MS = 4500;
const BACKUP_MS = 30_000;
const BACKUP_BYTES = 64 * 1024 * 1024;

type Device = StoredRule<WanjiDevice>;

/** A failure as this route's answer: the device's own `ret` (never "session invalid" here), its message. */
function answerOf(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const f = remoteFailure(err);
  return new AppError((f.ret === Ret.sessionInvalid ? Ret.denied : f.ret) as RetCode, f.msg.key as MessageKey, f.msg.vars ?? {});
}

/** The CA text must be certificates; a pin is stored as written. */
export function checkTls(device: WanjiDevice): void {
  if (device.ca.trim() === '') return;
  try {
    certificateFacts(device.ca);
  } catch (err) {
    throw fail(Ret.badRequest, 'wanjiBadCa', { detail: msgOf(err) });
  }
}

/** Reaches the device and asks who its token is: the version, host name and scope, or why not. */
export async function probe(mod: WanjiContext, device: DeviceLink, lang: Lang) {
  const engine = await mod.engine();
  const t0 = Date.now();
  const remote = engine.remote(device, lang, Math.min(mod.rules.settings().timeout * 1000, INTERACTIVE_MS));
  try {
    const [v, who, status] = await Promise.all([remote.call(coreRoutes.version, {}), remote.call(coreRoutes.whoami, {}), remote.call(coreRoutes.status, {})]);
    return { version: v.version, hostname: status.data.system.hostname, scope: who.scope, ms: Date.now() - t0 };
  } catch (err) {
    throw answerOf(err);
  }
}

/** What an action is, in the reader's language (device log) and for the audit log. */
function described(a: WanjiAction): { line: Msg; audit: string } {
  switch (a.action) {
    case 'switch':
      return {
        line: { key: 'wanjiAction_switch', vars: { state: { key: a.enable ? 'wanjiOn' : 'wanjiOff' }, module: moduleName(a.module), rule: a.rule } },
        audit: `switch ${a.module}/${a.rule} ${a.enable ? 'on' : 'off'}`,
      };
    case 'sync':
      return { line: { key: 'wanjiAction_sync', vars: { rule: a.rule } }, audit: `sync ddns/${a.rule}` };
    case 'wake':
      return { line: { key: 'wanjiAction_wake', vars: { rule: a.rule } }, audit: `wake wol/${a.rule}` };
    case 'restart':
      return { line: { key: 'wanjiAction_restart' }, audit: 'restart' };
  }
}

export function wanjiRoutes(mod: WanjiContext): OwnHandlers<typeof wanjiContract> {
  const interactive = () => Math.min(mod.rules.settings().timeout * 1000, INTERACTIVE_MS);

  /** A device that is switched on (a device switched off is left alone). */
  function deviceOn(key: string): Device {
    const d = mod.rules.require(key);
    if (!d.data.enable) throw fail(Ret.failed, 'wanjiDeviceOff', { name: d.data.name });
    return d;
  }

  /**
   * Runs a remote action and writes it down: the audit log (who, from where, which device, what,
   * the answer's ret) and the device's log. A failure is thrown as the route's answer.
   */
  async function audited<T>(req: FastifyRequest, device: Device, what: { line: Msg; audit: string }, fn: () => Promise<{ value: T; result: Msg }>): Promise<T> {
    const entry = { actor: actorOf(req), address: req.ip, action: `wanji ${what.audit}`, target: `${device.data.name} [${device.key}]` };
    try {
      const { value, result } = await fn();
      mod.services.audit.add({ ...entry, result: Ret.ok });
      mod.rules.logs.add(device.key, { key: 'wanjiDone', vars: { action: what.line, result } });
      return value;
    } catch (err) {
      const answer = answerOf(err);
      mod.services.audit.add({ ...entry, result: answer.ret });
      mod.rules.logs.add(device.key, { key: 'wanjiFailed', vars: { action: what.line, detail: answer.key ? { key: answer.key, vars: answer.vars } : (answer.text ?? '') } });
      throw answer;
    }
  }

  /** Polls the device again soon, so the list shows what an action changed. */
  const repoll = (key: string) => void mod.engine().then((e) => e.poller.pollNow([key]));

  const said = (text: string): Msg => ({ key: 'rawText', vars: { text } });

  return {
    test: async ({ body, req }) => {
      const stored = body.key ? mod.rules.get(body.key)?.data : undefined;
      const device = parseOrFail(ZWanjiDevice, restoreSecrets(ZWanjiDevice, body.device, stored), req.lang);
      checkTls(device);
      const r = await probe(mod, device, req.lang);
      const msg = message(req.lang, 'wanjiTestOk', { ...r, scope: { key: r.scope === 'full' ? 'wanjiScope_full' : 'wanjiScope_read' } });
      return { msg, ...r };
    },

    refresh: async ({ query }) => {
      const engine = await mod.engine();
      const t0 = Date.now();
      let done = false;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        engine.poller.pollNow().then(() => (done = true)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, query.wait * 1000))),
      ]);
      clearTimeout(timer);
      const keys = engine.poller.keys();
      return { done, ms: Date.now() - t0, devices: keys.length, online: keys.filter((k) => engine.poller.figures(k)?.online === 'online').length };
    },

    remoteRules: async ({ params, query, req }) => {
      const device = deviceOn(params.key);
      const c = contractOf(query.module);
      const engine = await mod.engine();
      try {
        return { list: await remoteRules(engine.remote(device.data, req.lang, interactive()), c) };
      } catch (err) {
        throw answerOf(err);
      }
    },

    action: async ({ params, body, req }) => {
      const device = deviceOn(params.key);
      const engine = await mod.engine();
      const remote = engine.remote(device.data, req.lang, interactive());
      const result = await audited<Msg>(req, device, described(body), async () => {
        let line: Msg;
        switch (body.action) {
          case 'switch':
            await remote.call(contractOf(body.module).routes.enable, { params: { key: body.rule }, body: { enable: body.enable } } as never);
            // The log line names the action already: "switch … off: done".
            return { value: { key: 'wanjiSwitched', vars: { state: { key: body.enable ? 'wanjiOn' : 'wanjiOff' }, module: moduleName(body.module), rule: body.rule } }, result: { key: 'wanjiOk' } };
          case 'sync':
            line = said((await remote.call(ddnsRoutes.sync, { params: { key: body.rule }, query: { wait: 3 } })).msg);
            break;
          case 'wake':
            line = said((await remote.call(wolRoutes.wake, { params: { key: body.rule } })).msg);
            break;
          case 'restart':
            line = said((await remote.call(coreRoutes.rebootProgram, {})).msg);
            break;
        }
        return { value: line, result: line };
      });
      repoll(device.key);
      return { msg: renderMsg(req.lang, result) };
    },

    backup: async ({ query, req, reply }) => {
      const device = deviceOn(query.device);
      const engine = await mod.engine();
      const res = await audited(req, device, { line: { key: 'wanjiAction_backup' }, audit: 'backup' }, async () => {
        const r = await engine.remote(device.data, req.lang, BACKUP_MS, { maxBytes: BACKUP_BYTES }).download(coreRoutes.configureDownload, { query: { secrets: '0' } });
        try {
          JSON.parse(r.text);
        } catch (err) {
          throw new RemoteFailure({ key: 'wanjiBackupNotJson', vars: { detail: (err as Error).message } }, Ret.failed);
        }
        return { value: r, result: { key: 'wanjiBackupDone', vars: { size: Buffer.byteLength(r.text) } } };
      });
      const remoteName = /filename="([^"]+)"/.exec(res.headers['content-disposition'] ?? '')?.[1] ?? 'lucky-backup.json';
      return reply
        .header('content-disposition', `attachment; filename="${device.key}-${remoteName.replace(/[^\w.-]/g, '_')}"`)
        .type('application/json; charset=utf-8')
        .send(res.text);
    },

    push: async ({ body, req }) => {
      const c = contractOf(body.module);
      // Checked here first: a rule the module would refuse is refused once, for every device.
      parseOrFail(c.rule, body.rule, req.lang);
      const engine = await mod.engine();
      const name = String(body.rule.name ?? '');
      const what = { line: { key: 'wanjiAction_push', vars: { module: moduleName(body.module), name } } as Msg, audit: `push ${body.module} "${name}"` };
      const results = await eachBounded(
        [...new Set(body.devices)],
        mod.rules.settings().concurrency,
        FLEET_DEADLINE_MS,
        async (key, signal): Promise<WanjiDeviceResult> => {
          const device = mod.rules.get(key);
          if (!device) return { device: key, name: '', ok: false, msg: message(req.lang, 'ruleNotFound'), remoteKey: '' };
          try {
            if (!device.data.enable) throw fail(Ret.failed, 'wanjiDeviceOff', { name: device.data.name });
            const remote = engine.remote(device.data, req.lang, INTERACTIVE_MS, { signal });
            const r = await audited(req, device, what, async () => {
              const pushed = await pushRule(remote, c, body.rule);
              return { value: pushed, result: pushed.line };
            });
            repoll(device.key);
            return { device: key, name: device.data.name, ok: true, msg: renderMsg(req.lang, r.line), remoteKey: r.key };
          } catch (err) {
            return { device: key, name: device.data.name, ok: false, msg: answerOf(err).toMessage(req.lang), remoteKey: '' };
          }
        },
        (key) => ({ device: key, name: mod.rules.get(key)?.data.name ?? '', ok: false, msg: message(req.lang, 'wanjiDeadline', { seconds: FLEET_DEADLINE_MS / 1000 }), remoteKey: '' }),
      );
      return { results };
    },

    compare: async ({ query, req }) => {
      if (query.a === query.b) throw fail(Ret.badRequest, 'wanjiSameDevice');
      const c = contractOf(query.module);
      const [a, b] = [deviceOn(query.a), deviceOn(query.b)];
      const engine = await mod.engine();
      try {
        const [ra, rb] = await Promise.all([a, b].map((d) => remoteRules(engine.remote(d.data, req.lang, interactive()), c)));
        return { rows: compareRules(ra!, rb!) };
      } catch (err) {
        throw answerOf(err);
      }
    },

    versions: async ({ body, req }) => {
      const engine = await mod.engine();
      const keys = body.devices.length ? [...new Set(body.devices)] : mod.rules.list().filter((d) => d.data.enable).map((d) => d.key);
      const asked = await eachBounded(
        keys,
        mod.rules.settings().concurrency,
        FLEET_DEADLINE_MS,
        async (key, signal) => {
          const device = mod.rules.get(key);
          if (!device) return { device: key, name: '', ok: false, msg: message(req.lang, 'ruleNotFound'), version: '' };
          try {
            if (!device.data.enable) throw fail(Ret.failed, 'wanjiDeviceOff', { name: device.data.name });
            const v = await engine.remote(device.data, req.lang, INTERACTIVE_MS, { signal }).call(coreRoutes.version, {});
            return { device: key, name: device.data.name, ok: true, msg: '', version: v.version };
          } catch (err) {
            return { device: key, name: device.data.name, ok: false, msg: answerOf(err).toMessage(req.lang), version: '' };
          }
        },
        (key) => ({ device: key, name: mod.rules.get(key)?.data.name ?? '', ok: false, msg: message(req.lang, 'wanjiDeadline', { seconds: FLEET_DEADLINE_MS / 1000 }), version: '' }),
      );
      const newest = [mod.version, ...asked.filter((r) => r.ok).map((r) => r.version)].reduce((a, b) => (compareVersions(a, b) >= 0 ? a : b));
      const results = asked.map((r) => {
        const behind = r.ok && compareVersions(r.version, newest) < 0;
        const msg = r.ok ? message(req.lang, behind ? 'wanjiVersionBehind' : 'wanjiVersionNewest', { version: r.version, newest }) : r.msg;
        return { ...r, msg, behind, remoteKey: '' };
      });
      return { newest, own: mod.version, results };
    },
  };
}

/** The pin in one spelling before it is stored (what the device's certificate is compared with). */
export const storedPin = (pin: string) => (pin === '' ? '' : normalizePin(pin));
