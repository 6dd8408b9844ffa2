import { describe, expect, it } from 'vitest';
import { checkRule, emptyForm, formToRule, toForm } from './form';

describe('FTP server form', () => {
  it('starts from the contract defaults and round-trips a rule', () => {
    const f = emptyForm();
    expect(f.port).toBe(21);
    expect([f.pasvMin, f.pasvMax]).toEqual([50000, 50100]);
    expect(f.tls).toBe('off');
    expect(f.anonymous).toBe(false);
    const rule = formToRule({ ...f, name: 'n', rootStorage: 's1' });
    expect(rule.mounts).toEqual([{ name: '', storage: 's1' }]);
    expect(toForm(rule)).toMatchObject({ mountMode: 'root', rootStorage: 's1', name: 'n' });
  });

  it('sends only what the chosen modes use', () => {
    const f = { ...emptyForm(), name: 'n', rootStorage: 's1', pasvAddress: '203.0.113.7', pasvDdnsTask: 't', requireTls: true };
    expect(formToRule(f)).toMatchObject({ pasvAddress: '', pasvDdnsTask: '', requireTls: false, certs: [] });
    expect(formToRule({ ...f, pasvMode: 'fixed', tls: 'explicit' })).toMatchObject({ pasvAddress: '203.0.113.7', pasvDdnsTask: '', requireTls: true });
  });

  it('names the problems in the chosen language, on their fields', () => {
    const f = { ...emptyForm(), name: 'n', rootStorage: 's1', pasvMin: 60000, pasvMax: 50000 };
    expect(checkRule(f, 'en_US')).toEqual([expect.objectContaining({ path: 'pasvMax', message: expect.stringMatching(/first passive port cannot be above the last/) })]);
    expect(checkRule(f, 'zh_CN')[0]?.message).toMatch(/起始端口不能大于结束端口/);
    expect(checkRule({ ...emptyForm(), name: 'n' }, 'en_US').map((p) => p.path)).toEqual(['rootStorage']);
  });
});
