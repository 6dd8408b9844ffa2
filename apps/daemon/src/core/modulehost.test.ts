/**
 * The module host with small modules of the test's own: what is imported when, services between
 * modules (and a cycle refused), and the `actions` service driving another module's rules.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { z } from 'zod';
import { moduleContract, Ret, ruleView, type ModuleKey } from '@lucky/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openBaseConfig, type BaseConfigStore } from './baseconfig.js';
import { coreMigrations, migrate, openDb, type Db } from './db.js';
import { LoginGuard } from './loginguard.js';
import { createProgramLog } from './logs.js';
import { installEnvelope } from './envelope.js';
import { defineModule, type AnyModule } from './module.js';
import { ModuleHost, type ModuleEntry } from './modulehost.js';
import { PortRegistry } from './ports.js';

const ZNote = z.object({ name: z.string().min(1), enable: z.boolean().default(true), text: z.string().default('') });
const contractOf = (key: ModuleKey) => moduleContract(key, { input: ZNote, view: ruleView(ZNote), configure: z.object({}) });

/** A module whose engine records what it ran; `needs` and `provides` as the test says. */
function noteModule(key: ModuleKey, opts: { needs?: readonly string[]; provides?: string[] } = {}): AnyModule {
  const ran: string[] = [];
  return defineModule({
    key,
    contract: contractOf(key),
    services: {
      needs: (opts.needs ?? []) as never,
      provides: Object.fromEntries((opts.provides ?? []).map((s) => [s, () => ({ from: key })])) as never,
    },
    engine: async () => ({
      async start(rule) {
        ran.push(rule.name);
        return { stop: async () => undefined };
      },
    }),
    run: async (rule) => ({ key: 'ruleStarted', vars: { name: rule.data.name } }),
    operations: { halt: async (rule) => ({ key: 'ruleStopped', vars: { name: rule.data.name } }) },
  }) as unknown as AnyModule;
}

let dir: string;
let db: Db;
let config: BaseConfigStore;
const imported: string[] = [];

function entry(spec: AnyModule, provides?: string[]): ModuleEntry {
  return {
    key: spec.key,
    ...(provides ? { provides: provides as never } : {}),
    load: async () => {
      imported.push(spec.key);
      return { default: spec };
    },
  };
}

function host(table: ModuleEntry[]): ModuleHost {
  return new ModuleHost(table, { db, dataDir: dir, config, ports: new PortRegistry() }, createProgramLog({ level: 2, capacity: 10 }).logger);
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lucky-host-'));
  db = openDb(dir);
  migrate(db, 'core', coreMigrations);
  config = (await openBaseConfig({ dataDir: dir, initialPassword: 'x-password-1' })).store;
  imported.length = 0;
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the module host', () => {
  it('never imports a module that is switched off, and imports it when it is switched on', async () => {
    config.update({ EnabledModules: ['wol'] });
    const h = host([entry(noteModule('wol')), entry(noteModule('cron'))]);
    await h.sync();
    expect(imported).toEqual(['wol']);
    config.update({ EnabledModules: ['wol', 'cron'] });
    await h.sync();
    expect(imported).toEqual(['wol', 'cron']);
    await h.stopAll();
  });

  it('builds a service by loading the module that provides it, even while that module is off', async () => {
    config.update({ EnabledModules: ['cron'] });
    const h = host([entry(noteModule('cron', { needs: ['webhooks'] })), entry(noteModule('ddns', { provides: ['webhooks'] }), ['webhooks'])]);
    await h.sync();
    expect(imported).toEqual(['cron', 'ddns']);
    expect(await h.service('webhooks' as never)).toEqual({ from: 'ddns' });
    expect(h.connections()).toEqual({ cron: 0 });
    await h.stopAll();
  });

  it('refuses modules that need each other in a cycle, naming the cycle', async () => {
    const h = host([
      entry(noteModule('stun', { needs: ['certificates'], provides: ['webhooks'] }), ['webhooks']),
      entry(noteModule('ddns', { needs: ['webhooks'], provides: ['certificates'] }), ['certificates']),
    ]);
    await expect(h.load('stun')).rejects.toThrow('modules need each other\'s services in a cycle: stun → ddns → stun');
  });

  it('refuses a module whose table entry lies about what it provides', async () => {
    const h = host([entry(noteModule('ddns', { provides: ['webhooks'] }))]);
    await expect(h.load('ddns')).rejects.toThrow(/the table says it provides \[\], it provides \[webhooks\]/);
  });

  it('lets the actions service list, switch and run another module\'s rules through the module\'s own checks', async () => {
    config.update({ EnabledModules: ['wol'] });
    const h = host([entry(noteModule('wol'))]);
    await h.sync();
    const wol = await h.load('wol');
    const key = await wol.ops.create({ name: 'NAS' }, 'en_US');
    const actions = await h.service('actions');
    expect(actions.modules()).toEqual(['wol']);
    expect(await actions.rules('wol')).toEqual([expect.objectContaining({ key, name: 'NAS', enable: true, canRun: true, operations: ['halt'], status: expect.objectContaining({ state: 'running' }) })]);
    // A named operation beyond "run now"; one the module does not offer is "not available".
    expect(await actions.run('wol', key, 'halt')).toEqual({ key: 'ruleStopped', vars: { name: 'NAS' } });
    await expect(actions.run('wol', key, 'toString')).rejects.toMatchObject({ ret: Ret.notAvailable });
    await actions.setEnabled('wol', key, false);
    expect((await actions.rules('wol'))[0]).toMatchObject({ enable: false, status: { state: 'disabled' } });
    expect(await actions.run('wol', key)).toEqual({ key: 'ruleStarted', vars: { name: 'NAS' } });
    await expect(actions.rules('cron')).rejects.toMatchObject({ ret: 4 });
    await h.stopAll();
  });

  it('asks a module before a delete that was not confirmed (guardRemove), and deletes when confirmed', async () => {
    config.update({ EnabledModules: ['wol'] });
    let inUse = true;
    const spec = {
      ...noteModule('wol'),
      guardRemove: () => (inUse ? { key: 'storageInUse', vars: { name: 'x', services: 'webdav' } } : null),
    } as AnyModule;
    const h = host([entry(spec)]);
    await h.sync();
    const wol = await h.load('wol');
    const a = await wol.ops.create({ name: 'A' }, 'en_US');
    await expect(wol.ops.remove(a)).rejects.toMatchObject({ ret: 6, key: 'storageInUse', vars: { services: 'webdav' } });
    expect(wol.ops.get(a)).toBeDefined();
    await wol.ops.remove(a, { confirm: true });
    expect(wol.ops.get(a)).toBeUndefined();
    inUse = false;
    const b = await wol.ops.create({ name: 'B' }, 'en_US');
    await wol.ops.remove(b);
    expect(wol.ops.get(b)).toBeUndefined();
    await h.stopAll();
  });

  it('answers "not available yet" on the routes of a module of the spec that the table does not have', async () => {
    const app = Fastify();
    installEnvelope(app);
    const h = host([entry(noteModule('wol'))]);
    h.routes(app, ['wol', 'cron']);
    await app.ready();
    const r = await app.inject({ method: 'GET', url: '/api/cron/rules', headers: { 'lucky-lang': 'en_US' } });
    expect(r.json()).toEqual({ ret: 5, msg: 'Not available yet' });
    expect(imported).toEqual([]);
    await app.close();
  });

  it('hands modules the login guard it was given, so their logins share the console lock-out', async () => {
    const guard = new LoginGuard(() => ({ ...config.get().LoginProtection, freeFailures: 1 }));
    const h = new ModuleHost([entry(noteModule('wol'))], { db, dataDir: dir, config, ports: new PortRegistry(), loginGuard: guard }, createProgramLog({ level: 2, capacity: 10 }).logger);
    const wol = await h.load('wol');
    expect(wol.ctx.loginGuard).toBe(guard);
    wol.ctx.loginGuard.fail('10.1.1.1');
    expect(guard.lockedFor('10.1.1.1')).toBeGreaterThan(0);
    // Without one (tests, tools), the host makes its own from the saved login protection.
    expect((await host([entry(noteModule('cron'))]).load('cron')).ctx.loginGuard).toBeInstanceOf(LoginGuard);
  });
});
