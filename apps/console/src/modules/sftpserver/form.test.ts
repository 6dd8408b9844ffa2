import { describe, expect, it } from 'vitest';
import { checkRule, checkSettings, emptyForm, formToRule, settingsToBody, toForm } from './form';

describe('SFTP server form', () => {
  it('starts from the contract defaults and round-trips a rule', () => {
    const f = emptyForm();
    expect(f.port).toBe(2222);
    expect([f.passwordLogin, f.keyLogin]).toEqual([true, true]);
    expect([f.maxConnections, f.maxPerUser, f.idleTimeout]).toEqual([50, 8, 300]);
    expect(f.name).toBe('');
    const rule = formToRule({ ...f, name: ' n ', rootStorage: 's1', address: ' 127.0.0.1 ' });
    expect(rule).toMatchObject({ name: 'n', address: '127.0.0.1', mounts: [{ name: '', storage: 's1' }] });
    expect(toForm(rule)).toMatchObject({ mountMode: 'root', rootStorage: 's1', name: 'n' });
    const folders = formToRule({ ...f, name: 'n', mountMode: 'folders', folders: [{ name: ' photos ', storage: 's1' }], rootStorage: 's9' });
    expect(folders.mounts).toEqual([{ name: 'photos', storage: 's1' }]);
  });

  it('names the problems in the chosen language, on their fields', () => {
    const ok = { ...emptyForm(), name: 'n', rootStorage: 's1' };
    expect(checkRule(ok)).toEqual([]);
    expect(checkRule({ ...emptyForm(), name: 'n' }, 'en_US').map((p) => p.path)).toEqual(['rootStorage']);
    const noLogin = checkRule({ ...ok, passwordLogin: false, keyLogin: false }, 'en_US');
    expect(noLogin).toEqual([expect.objectContaining({ path: 'keyLogin', message: expect.stringMatching(/Login methods.*at least one way to log in/) })]);
    expect(checkRule({ ...ok, passwordLogin: false, keyLogin: false }, 'zh_CN')[0]?.message).toMatch(/至少要允许一种登录方式/);
    expect(checkRule({ ...ok, maxConnections: 2, maxPerUser: 5 }, 'en_US').map((p) => p.path)).toEqual(['maxPerUser']);
    expect(checkRule({ ...ok, idleTimeout: 5 }, 'en_US')[0]?.message).toMatch(/Idle timeout/);
    expect(checkRule({ ...ok, port: '' }, 'en_US').map((p) => p.path)).toEqual(['port']);
  });

  it('settings: the access log switch', () => {
    expect(settingsToBody({ accessLog: false })).toEqual({ accessLog: false });
    expect(checkSettings({ accessLog: true })).toEqual([]);
  });
});
