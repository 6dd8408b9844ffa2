import { ZWebdavConfigure, ZWebdavRule, type WebdavFigures } from '@lucky/contracts';
import { describe, expect, it } from 'vitest';
import { trafficText } from '../../kit/storage/cells';
import { mountLines } from '../../kit/storage/mounts';
import { webdavTextIn } from './i18n';
import { checkRule, checkSettings, emptyForm, formToRule, settingsToBody, settingsToForm, toForm, type RuleForm } from './form';

const base = (): RuleForm => ({ ...emptyForm(), name: 'dav', rootStorage: 's1' });
const storages = [
  { key: 's1', name: 'Photos' },
  { key: 's2', name: 'Docs' },
];

describe('form ↔ rule', () => {
  it('a new form: the contracts defaults, port 8080, one storage at the root', () => {
    const r = formToRule(base());
    expect(r).toEqual({ name: 'dav', enable: true, address: '', port: 8080, tls: false, certs: [], prefix: '/', mounts: [{ name: '', storage: 's1' }], lockTimeout: 3600, note: '' });
    expect(ZWebdavRule.safeParse(r).success).toBe(true);
  });

  it('round-trips a rule with folders and certificates', () => {
    const rule = ZWebdavRule.parse({
      name: 'full',
      address: '127.0.0.1',
      port: 8443,
      tls: true,
      certs: [{ source: 'file', cert: '/c.pem', key: '/k.pem', domains: ['a.example.com'] }],
      prefix: '/dav',
      mounts: [
        { name: 'photos', storage: 's1' },
        { name: 'docs', storage: 's2' },
      ],
      lockTimeout: 600,
      note: 'n',
    });
    const f = toForm(rule);
    expect(f).toMatchObject({ mountMode: 'folders', rootStorage: '', folders: rule.mounts });
    expect(formToRule(f)).toEqual(rule);
    const root = toForm({ ...rule, mounts: [{ name: '', storage: 's2' }] });
    expect(root).toMatchObject({ mountMode: 'root', rootStorage: 's2', folders: [] });
  });

  it('certificates go only with HTTPS', () => {
    const f = toForm(ZWebdavRule.parse({ name: 'x', port: 1, tls: true, certs: [{ source: 'file', cert: ' /c ', key: '/k', domains: [] }], mounts: [{ name: '', storage: 's1' }] }));
    expect(formToRule(f).certs).toEqual([{ source: 'file', cert: '/c', key: '/k', domains: [] }]);
    expect(formToRule({ ...f, tls: false }).certs).toEqual([]);
  });
});

describe('checks', () => {
  it('a root mount not chosen shows on the storage choice; HTTPS without a certificate is named', () => {
    const problems = checkRule({ ...base(), rootStorage: '', tls: true }, 'en_US');
    expect(problems.map((p) => p.path)).toEqual(['rootStorage', 'certs']);
    expect(problems[0]!.message).toBe('Mounted storages cannot be empty');
  });

  it('folders: repeated names, bad names, a bad prefix and port', () => {
    const f: RuleForm = {
      ...base(),
      mountMode: 'folders',
      folders: [
        { name: 'a', storage: 's1' },
        { name: 'A', storage: 's2' },
        { name: 'x/y', storage: 's2' },
      ],
      prefix: 'dav',
      port: 0,
    };
    const paths = checkRule(f, 'zh_CN').map((p) => p.path);
    expect(paths).toEqual(['port', 'prefix', 'mounts.2.name']);
    // The overlap check runs once the fields themselves are right.
    expect(checkRule({ ...f, prefix: '/', port: 1, folders: f.folders.slice(0, 2) }, 'en_US').map((p) => [p.path, p.inline])).toEqual([
      ['mounts.1.name', 'line 2: mount names repeat, or a root mount sits beside other mounts'],
    ]);
    expect(checkRule({ ...base(), mountMode: 'folders', folders: [] }, 'zh_CN').map((p) => [p.path, p.message])).toEqual([['mounts', '挂载的存储不能为空']]);
  });

  it('settings: the whole object, bounds named', () => {
    const s = settingsToForm(ZWebdavConfigure.parse({}));
    expect(settingsToBody(s)).toEqual({ accessLogLines: 200 });
    expect(checkSettings({ accessLogLines: 1001 }, 'en_US').map((p) => p.path)).toEqual(['accessLogLines']);
  });
});

describe('the list', () => {
  const text = webdavTextIn('en_US');
  it('mounts by storage name; a deleted storage is named as such', () => {
    expect(mountLines([{ name: '', storage: 's1' }], storages, text)).toEqual(['root → Photos']);
    expect(mountLines([{ name: 'p', storage: 's1' }, { name: 'x', storage: 'gone' }], storages, text)).toEqual(['p → Photos', 'x → deleted storage gone']);
    expect(mountLines([{ name: 'p', storage: 's1' }], undefined, text)).toEqual(['p → s1']);
  });
  it('figures', () => {
    const figures: WebdavFigures = { connections: 1, requests: 2, bytesIn: 1500, bytesOut: 0, denied: 0 };
    expect(trafficText(figures)).toEqual({ bytesIn: '1.50 KB', bytesOut: '0 B' });
  });
});
