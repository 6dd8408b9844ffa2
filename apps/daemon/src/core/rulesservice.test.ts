/**
 * The `rules` service on a real daemon, with real modules (WOL, port forwarding) and real sockets:
 * a rule made for another module's object is shown with its owner, passes the module's own checks
 * (a bad field, a port taken: refused, nothing stored), stays the user's to edit and delete, and
 * tells its status changes.
 */
import { createServer, type Server } from 'node:net';
import { MODULE_KEYS, Ret, type RuleStatus } from '@lucky/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startTestDaemon, type TestDaemon } from '../test/harness.js';
import { AppError } from './envelope.js';
import type { RulesService } from './services/index.js';

const HA = { module: 'publish', key: 'svc1', name: 'Home Assistant' };
const EN = { headers: { 'lucky-lang': 'en_US' } };

const device = (name: string) => ({ name, macs: ['02:00:00:aa:bb:cc'], broadcast: '127.0.0.1' });
const forward = (name: string, port: number) => ({ name, types: ['tcp4' as const], listenHost: '127.0.0.1', listenPorts: String(port), targets: ['127.0.0.1'], targetPorts: '9' });

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 20));
  expect(cond()).toBe(true);
}

/** The AppError a call threw, to read its code and its text in either language. */
async function refusal(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('the rules service', () => {
  let d: TestDaemon;
  let rules: RulesService;
  beforeAll(async () => {
    d = await startTestDaemon();
    rules = await d.runtime.deps.modules.service('rules');
  });
  afterAll(async () => {
    await d?.close();
  });

  const list = async (module: string) => (await d.call<{ list: Array<{ key: string; name: string; owner: unknown }> }>('GET', `/api/${module}/rules`)).list;

  it('creates a rule owned by another module\'s object: its module shows it with the owner, the user edits and deletes it', async () => {
    const mine = await d.call<{ key: string }>('POST', '/api/wol/rules', device('mine'));
    const key = await rules.create('wol', { ...device('ha'), secureOn: '01:02:03:04:05:06' }, HA);
    expect((await list('wol')).map((r) => [r.key, r.name, r.owner])).toEqual([[mine.key, 'mine', null], [key, 'ha', HA]]);
    expect((await d.call<{ rule: { owner: unknown } }>('GET', `/api/wol/rules/${key}`)).rule.owner).toEqual(HA);

    // Read as the REST view reads it: secrets masked, which keep their value when sent back.
    const got = await rules.get('wol', key);
    expect(got).toMatchObject({ key, owner: HA, data: { name: 'ha', secureOn: '******' }, status: { state: expect.any(String) } });
    expect(await rules.owned('wol', { module: 'publish', key: 'svc1' })).toEqual([{ key, data: expect.objectContaining({ name: 'ha' }) }]);
    expect(await rules.owned('wol', { module: 'publish', key: 'svc2' })).toEqual([]);
    await rules.update('wol', key, { ...got!.data, name: 'ha 2' });
    expect(await rules.get('wol', key)).toMatchObject({ owner: HA, data: { name: 'ha 2' } });
    const stored = () => JSON.parse(d.runtime.db.prepare<[string], { data: string }>("SELECT data FROM rules WHERE module = 'wol' AND key = ?").get(key)!.data) as { secureOn: string };
    expect(stored().secureOn).toBe('01:02:03:04:05:06');

    // The owner's object renamed: its rules show the new name.
    expect(await rules.setOwnerName('wol', HA, 'HA (garage)')).toBe(1);
    expect((await list('wol')).find((r) => r.key === key)!.owner).toEqual({ ...HA, name: 'HA (garage)' });

    // The user edits it in its module (the view sent back as it is, owner included): the owner stays.
    const view = (await d.call<{ rule: Record<string, unknown> }>('GET', `/api/wol/rules/${key}`)).rule;
    expect((await d.call('PUT', `/api/wol/rules/${key}`, { ...view, name: 'edited', owner: { module: 'wol', key: 'x', name: 'taken over' } })).ret).toBe(0);
    expect(await rules.get('wol', key)).toMatchObject({ owner: { ...HA, name: 'HA (garage)' }, data: { name: 'edited' } });
    // A REST body never sets an owner.
    const posted = await d.call<{ key: string }>('POST', '/api/wol/rules', { ...device('posted'), owner: HA });
    expect((await rules.get('wol', posted.key))!.owner).toBeNull();

    // The user deletes it in its module: the owner finds it absent, and removing it again is no error.
    expect((await d.call('DELETE', `/api/wol/rules/${key}`)).ret).toBe(0);
    expect(await rules.get('wol', key)).toBeUndefined();
    expect(await rules.owned('wol', HA)).toEqual([]);
    await rules.remove('wol', key);
    await expect(rules.update('wol', key, device('gone'))).rejects.toMatchObject({ ret: Ret.notFound });

    const again = await rules.create('wol', device('ha'), HA);
    await rules.remove('wol', again);
    expect(await rules.get('wol', again)).toBeUndefined();
    expect((await list('wol')).map((r) => r.name)).toEqual(['mine', 'posted']);
  });

  it('refuses a bad rule with the module\'s message in the caller\'s language, and stores nothing', async () => {
    const before = await list('wol');
    const bad = { name: 'bad', macs: ['zz:zz'] };
    const en = await refusal(rules.create('wol', bad, HA, 'en_US'));
    const zh = await refusal(rules.create('wol', bad, HA, 'zh_CN'));
    expect(en.ret).toBe(Ret.badRequest);
    // The same words as the REST route's, in each language.
    expect(en.toMessage('en_US')).toBe((await d.call('POST', '/api/wol/rules', bad, EN)).msg);
    expect(zh.toMessage('zh_CN')).toBe((await d.call('POST', '/api/wol/rules', bad, { headers: { 'lucky-lang': 'zh_CN' } })).msg);
    expect(zh.toMessage('zh_CN')).not.toBe(en.toMessage('en_US'));
    // A malformed owner is the calling module's mistake: refused before anything is stored.
    await expect(rules.create('wol', device('x'), { module: 'Publish', key: 'svc1', name: 'x' })).rejects.toThrow();
    expect(await list('wol')).toEqual(before);
  });

  it('refuses a port another rule holds, naming it, and stores nothing', async () => {
    const port = await freePort();
    const first = await d.call<{ key: string }>('POST', '/api/portforward/rules', forward('first', port));
    expect(first.ret).toBe(0);
    const err = await refusal(rules.create('portforward', forward('published', port), HA));
    expect(err.ret).toBe(Ret.failed);
    expect(err.toMessage('en_US')).toBe(`Not saved: tcp 127.0.0.1:${port} is taken by the port forwarding rule "first"`);
    expect((await list('portforward')).map((r) => r.name)).toEqual(['first']);
    expect(await rules.owned('portforward', HA)).toEqual([]);
    // Nor may an owned rule be moved onto it.
    const other = await rules.create('portforward', forward('published', await freePort()), HA);
    expect((await refusal(rules.update('portforward', other, forward('published', port)))).ret).toBe(Ret.failed);
    await rules.remove('portforward', other);
    await rules.remove('portforward', first.key);
  });

  it('tells status changes of a module\'s rules, in the language asked, until unsubscribed', async () => {
    const seen: Array<[string, RuleStatus['state'], string]> = [];
    const stop = rules.onStatus('portforward', (key, status) => seen.push([key, status.state, status.message]), 'en_US');
    const key = await rules.create('portforward', forward('told', await freePort()), HA);
    await until(() => seen.length >= 1);
    expect(seen).toEqual([[key, 'running', '']]);

    expect((await d.call('PUT', `/api/portforward/rules/${key}/enable`, { enable: false })).ret).toBe(0);
    await until(() => seen.length >= 2);
    expect(seen[1]).toEqual([key, 'disabled', '']);

    // A port held outside Lucky: the start fails, told once (not the "running" it shows while it starts).
    const blocker: Server = createServer();
    const held = await new Promise<number>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve((blocker.address() as { port: number }).port)));
    try {
      const blocked = await rules.create('portforward', forward('blocked', held), HA);
      await until(() => seen.some(([k]) => k === blocked));
      const told = seen.filter(([k]) => k === blocked);
      expect(told).toHaveLength(1);
      expect(told[0]![1]).toBe('error');
      expect(told[0]![2]).toMatch(new RegExp(`${held}`));
      await rules.remove('portforward', blocked);
      await until(() => seen.filter(([k]) => k === blocked).length >= 2);
      expect(seen.filter(([k]) => k === blocked)[1]).toEqual([blocked, 'stopped', '']);
    } finally {
      blocker.close();
    }

    // A rule that never ran, deleted: nothing to tell. Unsubscribed: nothing more.
    const count = seen.length;
    await rules.remove('portforward', key);
    stop();
    await rules.remove('portforward', await rules.create('portforward', forward('unheard', await freePort()), HA));
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).toHaveLength(count);
    expect(() => rules.onStatus('teleport' as never, () => undefined)).toThrow(AppError);
  });

  it('answers "module disabled" for a module that is switched off, as the actions service does', async () => {
    d.runtime.config.update({ EnabledModules: MODULE_KEYS.filter((k) => k !== 'wol') });
    await d.runtime.deps.modules.sync();
    try {
      for (const call of [rules.create('wol', device('x'), HA), rules.get('wol', 'k1'), rules.owned('wol', HA), rules.remove('wol', 'k1')]) {
        await expect(call).rejects.toMatchObject({ ret: Ret.moduleDisabled });
      }
    } finally {
      d.runtime.config.update({ EnabledModules: [...MODULE_KEYS] });
      await d.runtime.deps.modules.sync();
    }
  });
});
