import { SECRET_MASK, ZStorage, ZStorageConfigure, type StorageConfigure } from '@lucky/contracts';
import { describe, expect, it } from 'vitest';
import { storageTextIn } from './i18n';
import {
  barColor,
  checkRule,
  checkUser,
  emptyForm,
  formToRule,
  hostKeyToPin,
  publicKeysSummary,
  quotaToBytes,
  quotaToForm,
  remoteTestBody,
  serviceName,
  storageWhere,
  toForm,
  usageBars,
  userToForm,
  withAnonymous,
  withoutUser,
  withPermission,
  withUser,
} from './form';

/** A real Ed25519 public key (its blob names its type). */
const ED25519 = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBV3Tgu2DOrAQbIdX5GQTwevKsmHn5Dqi5LKy6zaKqKi';

const settings = (): StorageConfigure =>
  ZStorageConfigure.parse({
    users: [
      { account: 'alice', password: SECRET_MASK, permissions: { s1: { read: true, write: true, delete: false } } },
      { account: 'bob', password: SECRET_MASK, enable: false },
    ],
  });

describe('a storage ↔ the form', () => {
  it('a new form is the contracts defaults; blank quota is none', () => {
    const r = formToRule({ ...emptyForm(), name: ' data ', path: ' /srv/data ' });
    expect(r).toEqual(ZStorage.parse({ name: 'data', enable: true, path: '/srv/data', readOnly: false, quota: null, note: '' }));
    expect(ZStorage.safeParse(r).success).toBe(true);
  });

  it('a quota shows in the largest whole unit and goes back to the same bytes', () => {
    expect(quotaToForm(null)).toEqual({ quota: '', quotaUnit: 'GB' });
    expect(quotaToForm(5e12)).toEqual({ quota: 5, quotaUnit: 'TB' });
    expect(quotaToForm(1.5e9)).toEqual({ quota: 1500, quotaUnit: 'MB' });
    expect(quotaToForm(1234567)).toEqual({ quota: 1.234567, quotaUnit: 'MB' });
    for (const q of [5e12, 1.5e9, 1234567, 1e6]) {
      const f = quotaToForm(q);
      expect(quotaToBytes(f.quota, f.quotaUnit)).toBe(q);
    }
    expect(quotaToBytes('', 'GB')).toBeNull();
    expect(quotaToBytes('x', 'GB')).toBeNaN();
  });

  it('round-trips every field', () => {
    const s = ZStorage.parse({ name: 'n', enable: false, path: '/a', readOnly: true, quota: 2e9, note: 'x' });
    expect(formToRule(toForm(s))).toEqual(s);
  });

  it('names the fields in both languages: a relative path, an empty name, a zero quota', () => {
    const f = { ...emptyForm(), path: 'rel/dir', quota: 0 };
    expect(checkRule(f, 'zh_CN').map((p) => [p.path, p.message])).toEqual([
      ['name', '名称不能为空'],
      ['path', expect.stringContaining('必须是以 / 开头的绝对路径')],
      ['quota', expect.stringContaining('配额')],
    ]);
    expect(checkRule(f, 'en_US')[0]!.message).toBe('Name cannot be empty');
  });
});

/** A host key fingerprint as ssh-keygen -l prints it. */
const FP = 'SHA256:3pWkmwHcW7wSeuuD/0xF4hxvPNkW3ugMnTAbCSLp8V8';
const FP2 = 'SHA256:AAAAmwHcW7wSeuuD/0xF4hxvPNkW3ugMnTAbCSLp8V8';

describe('remote storages ↔ the form', () => {
  const remotes = {
    webdav: ZStorage.parse({ name: 'dav', kind: 'webdav', webdav: { url: 'https://nas.lan/dav', username: 'u', password: SECRET_MASK, skipTlsVerify: true }, cacheSeconds: 30 }),
    sftp: ZStorage.parse({
      name: 'sftp',
      kind: 'sftp',
      sftp: { host: 'nas.lan', port: 2222, username: 'u', password: '', privateKey: SECRET_MASK, hostKey: FP, root: '/srv' },
      cacheSeconds: 0,
      readOnly: true,
    }),
    s3: ZStorage.parse({
      name: 's3',
      kind: 's3',
      s3: { endpoint: 'http://minio.lan:9000', region: 'eu-west-1', bucket: 'photos', prefix: 'lucky/', accessKeyId: 'AK', secretAccessKey: SECRET_MASK, pathStyle: false },
      quota: 5e12,
    }),
  };

  it('round-trips each kind, masked secrets included', () => {
    for (const s of Object.values(remotes)) {
      expect(formToRule(toForm(s))).toEqual(s);
      expect(checkRule(toForm(s))).toEqual([]);
    }
  });

  it('numbers as typed: the SFTP port and the cache seconds go as numbers, blank or junk named', () => {
    const f = { ...toForm(remotes.sftp), sftp: { ...toForm(remotes.sftp).sftp, port: '2022' }, cacheSeconds: '15' };
    expect(formToRule(f)).toMatchObject({ sftp: { port: 2022 }, cacheSeconds: 15 });
    const bad = { ...f, sftp: { ...f.sftp, port: '' }, cacheSeconds: 'x' };
    expect(checkRule(bad, 'en_US').map((p) => p.path)).toEqual(['sftp.port', 'cacheSeconds']);
    expect(checkRule(bad, 'zh_CN').map((p) => p.message)).toEqual([expect.stringContaining('端口'), expect.stringContaining('目录缓存')]);
  });

  it("names each kind's missing fields in both languages", () => {
    const webdav = { ...emptyForm(), name: 'r', kind: 'webdav' as const };
    expect(checkRule(webdav, 'zh_CN').map((p) => [p.path, p.message])).toEqual([['webdav.url', 'WebDAV 地址不能为空']]);
    expect(checkRule(webdav, 'en_US').map((p) => p.message)).toEqual(['WebDAV URL cannot be empty']);
    expect(checkRule({ ...webdav, webdav: { ...webdav.webdav, url: 'ftp://x' } }, 'en_US').map((p) => [p.path, p.message])).toEqual([['webdav.url', expect.stringContaining('WebDAV URL')]]);

    const sftp = { ...emptyForm(), name: 'r', kind: 'sftp' as const };
    expect(checkRule(sftp, 'en_US').map((p) => [p.path, p.message])).toEqual([
      ['sftp.host', 'Host cannot be empty'],
      ['sftp.username', 'Username cannot be empty'],
      ['sftp.password', expect.stringContaining('fill in a password or a private key')],
      ['sftp.hostKey', expect.stringContaining("fill in the server's host key fingerprint")],
    ]);
    expect(checkRule(sftp, 'zh_CN').map((p) => p.message)).toEqual([
      '主机不能为空',
      '用户名不能为空',
      expect.stringContaining('请填写密码或私钥'),
      expect.stringContaining('主机密钥指纹'),
    ]);

    const s3 = { ...emptyForm(), name: 'r', kind: 's3' as const, s3: { ...emptyForm().s3, endpoint: 'http://minio.lan:9000', bucket: 'Bad_Bucket' } };
    expect(checkRule(s3, 'en_US').map((p) => [p.path, p.message])).toEqual([
      ['s3.bucket', 'Bucket: a bucket name has 3-63 lowercase letters, digits, dots and hyphens'],
      ['s3.accessKeyId', 'Access key ID: fill in the access key ID and the secret access key'],
    ]);
    expect(checkRule({ ...s3, s3: { ...s3.s3, bucket: 'photos' } }, 'zh_CN').map((p) => [p.path, p.message])).toEqual([
      ['s3.accessKeyId', expect.stringContaining('请填写 Access Key ID 和 Secret Access Key')],
    ]);
    // A remote needs no local path.
    expect(checkRule({ ...s3, s3: { ...s3.s3, bucket: 'photos', accessKeyId: 'a', secretAccessKey: 's' } })).toEqual([]);
  });

  it('test connection sends the form as it is, with the key when editing', () => {
    const f = toForm(remotes.webdav);
    expect(remoteTestBody(f, 'k1')).toEqual({ key: 'k1', storage: remotes.webdav });
    expect(remoteTestBody(f, null)).toEqual({ storage: remotes.webdav });
  });

  it('offers to pin the host key an SFTP server showed when none or another is pinned', () => {
    const pinned = toForm(remotes.sftp);
    const none = { ...pinned, sftp: { ...pinned.sftp, hostKey: '' } };
    expect(hostKeyToPin(none, { hostKey: FP })).toBe(FP);
    expect(hostKeyToPin(pinned, { hostKey: FP })).toBeNull();
    expect(hostKeyToPin(pinned, { hostKey: FP2 })).toBe(FP2);
    expect(hostKeyToPin(none, { hostKey: '' })).toBeNull();
    expect(hostKeyToPin({ ...none, kind: 'webdav' }, { hostKey: FP })).toBeNull();
  });

  it('the list says where: the directory, or the server', () => {
    expect(storageWhere(ZStorage.parse({ name: 'l', path: '/srv' }))).toBe('/srv');
    expect(storageWhere(remotes.webdav)).toBe('https://nas.lan/dav');
    expect(storageWhere(remotes.sftp)).toBe('sftp://nas.lan:2222/srv');
    expect(storageWhere({ ...remotes.sftp, sftp: { ...remotes.sftp.sftp, port: 22, root: 'data' } })).toBe('sftp://nas.lan/data');
    expect(storageWhere(remotes.s3)).toBe('s3://photos/lucky/ @ http://minio.lan:9000');
  });
});

describe('the list', () => {
  const usage = { fsTotal: 1000, fsFree: 250, used: 90, usedAt: 1, usedBy: ['webdav'] };
  it('with a quota: the storage bar over the quota; always the disk bar', () => {
    expect(usageBars(100, usage)).toEqual({ quota: { used: 90, total: 100, percent: 90 }, counting: false, fs: { used: 750, total: 1000, percent: 75 } });
    expect(usageBars(null, usage).quota).toBeNull();
    expect(usageBars(100, { ...usage, used: null })).toMatchObject({ quota: null, counting: true });
    expect(usageBars(null, { ...usage, fsTotal: 0, fsFree: 0 }).fs.percent).toBe(0);
  });
  it('colours and service names', () => {
    expect([barColor(10), barColor(85), barColor(99)]).toEqual(['blue', 'orange', 'red']);
    expect(serviceName('webdav', storageTextIn('en_US'))).toBe('WebDAV');
    expect(serviceName('other', storageTextIn('en_US'))).toBe('other');
  });
});

describe('users', () => {
  it('a new user is added without storages; an existing one keeps its password by the mask and its permissions', () => {
    const c = settings();
    const added = withUser(c, null, { account: ' carol ', password: 'pw', enable: true, publicKeys: '', note: '' });
    expect(added.users[2]).toEqual({ account: 'carol', password: 'pw', enable: true, permissions: {}, publicKeys: '', note: '' });
    const edited = withUser(c, 0, { account: 'alice2', password: '', enable: true, publicKeys: '', note: 'n' });
    expect(edited.users[0]).toEqual({ account: 'alice2', password: SECRET_MASK, enable: true, permissions: { s1: { read: true, write: true, delete: false } }, publicKeys: '', note: 'n' });
    expect(edited.users[1]).toBe(c.users[1]);
    expect(ZStorageConfigure.safeParse(edited).success).toBe(true);
    expect(withoutUser(c, 0).users.map((u) => u.account)).toEqual(['bob']);
  });

  it('checks the one user edited: a new user needs a password, accounts are unique and well-formed', () => {
    const c = settings();
    expect(checkUser(c, null, { account: 'carol', password: '', enable: true, publicKeys: '', note: '' }, 'zh_CN').map((p) => [p.path, p.message])).toEqual([['password', '密码不能为空']]);
    expect(checkUser(c, null, { account: 'ALICE', password: 'x', enable: true, publicKeys: '', note: '' }, 'en_US').map((p) => p.path)).toEqual(['account']);
    expect(checkUser(c, 1, { account: 'bad name', password: '', enable: true, publicKeys: '', note: '' }, 'en_US').map((p) => [p.path, p.inline])).toEqual([
      ['account', 'an account is 1-64 letters, digits or . _ @ -'],
    ]);
    expect(checkUser(c, 1, { account: 'bob', password: '', enable: true, publicKeys: '', note: '' })).toEqual([]);
  });

  it('public keys: kept with the user, counted, and each bad line named by its number in the reader\'s language', () => {
    const c = settings();
    const keys = `# laptop\n${ED25519} alice@laptop\n\nssh-dss AAAA\nno-pty ${ED25519}\nssh-ed25519 AAAAC3NzaC1yc2E=`;
    expect(publicKeysSummary('')).toEqual({ count: 0, problems: [] });
    expect(publicKeysSummary(`${ED25519} a\n${ED25519} b`, 'en_US')).toEqual({ count: 2, problems: [] });
    const s = publicKeysSummary(keys, 'en_US');
    expect(s.count).toBe(1);
    expect(s.problems.map((p) => p.line)).toEqual([4, 5, 6]);
    expect(s.problems[0]!.message).toMatch(/^line 4: unsupported key type/);
    expect(s.problems[1]!.message).toMatch(/^line 5: a key line cannot start with options/);
    expect(s.problems[2]!.message).toMatch(/^line 6: the key is not valid/);
    expect(publicKeysSummary(keys, 'zh_CN').problems[0]!.message).toMatch(/^第 4 行：不支持的公钥类型/);
    const saved = withUser(c, 0, { ...userToForm(c.users[0]!), publicKeys: `${ED25519} alice@laptop` });
    expect(saved.users[0]!.publicKeys).toBe(`${ED25519} alice@laptop`);
    expect(userToForm(saved.users[0]!).publicKeys).toBe(`${ED25519} alice@laptop`);
    expect(checkUser(c, 0, { ...userToForm(c.users[0]!), publicKeys: keys }, 'en_US').map((p) => p.path)).toEqual(['publicKeys']);
    expect(checkUser(c, 0, { ...userToForm(c.users[0]!), publicKeys: `${ED25519} alice@laptop` })).toEqual([]);
  });

  it('the matrix: write and delete need read; unticking read takes the storage away; read-only storages take read alone', () => {
    const c = settings();
    const w = withPermission(c, 1, 's2', 'delete', true, false);
    expect(w.users[1]!.permissions).toEqual({ s2: { read: true, write: false, delete: true } });
    expect(withPermission(w, 1, 's2', 'read', false, false).users[1]!.permissions).toEqual({});
    expect(withPermission(c, 1, 's3', 'write', true, true).users[1]!.permissions).toEqual({ s3: { read: true, write: false, delete: false } });
    expect(withPermission(c, 0, 's1', 'write', false, false).users[0]!.permissions).toEqual({ s1: { read: true, write: false, delete: false } });
    expect(withPermission(c, 0, 's1', 'write', false, false).users[1]).toBe(c.users[1]);
  });

  it('anonymous access: the switch and the storages it reads', () => {
    const c = settings();
    const on = withAnonymous(withAnonymous(c, { enable: true }), { storage: 's1', on: true });
    expect(on.anonymous).toEqual({ enable: true, storages: ['s1'] });
    expect(withAnonymous(on, { storage: 's1', on: true }).anonymous.storages).toEqual(['s1']);
    expect(withAnonymous(on, { storage: 's1', on: false }).anonymous).toEqual({ enable: true, storages: [] });
  });
});
