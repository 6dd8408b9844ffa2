import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BASE_CONFIG_FILE, BaseConfigError, openBaseConfig, readBaseConfigFile } from './baseconfig.js';
import { verifyPassword } from './password.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'lucky-cfg-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('lucky_base.lkcf', () => {
  it('first start: random password, hashed with scrypt, file private', async () => {
    const dir = tempDir();
    const opened = await openBaseConfig({ dataDir: dir });
    expect(opened.created).toBe(true);
    expect(opened.generatedPassword).toMatch(/^[A-Za-z0-9]{20}$/);
    const text = readFileSync(join(dir, BASE_CONFIG_FILE), 'utf8');
    expect(text).not.toContain(opened.generatedPassword!);
    const cfg = JSON.parse(text);
    expect(cfg.AdminAccount).toBe('admin');
    expect(cfg.AdminPasswordHash).toMatch(/^scrypt\$/);
    expect(await verifyPassword(opened.generatedPassword!, cfg.AdminPasswordHash)).toBe(true);
    expect(await verifyPassword('admin', cfg.AdminPasswordHash)).toBe(false);
    expect(statSync(join(dir, BASE_CONFIG_FILE)).mode & 0o077).toBe(0);
  });

  it('uses the account from the environment and writes nothing random', async () => {
    const dir = tempDir();
    const opened = await openBaseConfig({ dataDir: dir, initialAccount: 'root', initialPassword: 'pw-from-env' });
    expect(opened.generatedPassword).toBeUndefined();
    expect(opened.store.get().AdminAccount).toBe('root');
    expect(await verifyPassword('pw-from-env', opened.store.get().AdminPasswordHash)).toBe(true);
  });

  it('keeps the saved file on the next start and applies explicit overrides', async () => {
    const dir = tempDir();
    await openBaseConfig({ dataDir: dir, initialPassword: 'x' });
    const again = await openBaseConfig({ dataDir: dir, overrides: { AdminWebListenPort: 18080 } });
    expect(again.created).toBe(false);
    expect(readBaseConfigFile(join(dir, BASE_CONFIG_FILE)).AdminWebListenPort).toBe(18080);
  });

  it('refuses a hand-edited invalid file, names the field, and leaves it untouched', async () => {
    const dir = tempDir();
    await openBaseConfig({ dataDir: dir, initialPassword: 'x' });
    const file = join(dir, BASE_CONFIG_FILE);
    const cfg = JSON.parse(readFileSync(file, 'utf8'));
    cfg.LogLevel = 42;
    const edited = JSON.stringify(cfg);
    writeFileSync(file, edited);
    await expect(openBaseConfig({ dataDir: dir })).rejects.toThrow(BaseConfigError);
    await expect(openBaseConfig({ dataDir: dir })).rejects.toThrow(/LogLevel/);
    expect(readFileSync(file, 'utf8')).toBe(edited);
  });

  it('refuses a corrupt file and leaves it untouched', async () => {
    const dir = tempDir();
    const file = join(dir, BASE_CONFIG_FILE);
    writeFileSync(file, '{"AdminAccount": "adm');
    await expect(openBaseConfig({ dataDir: dir })).rejects.toThrow(/not valid JSON/);
    expect(readFileSync(file, 'utf8')).toBe('{"AdminAccount": "adm');
  });

  it('a rejected update changes neither memory nor disk, and leaves no temp file', async () => {
    const dir = tempDir();
    const { store } = await openBaseConfig({ dataDir: dir, initialPassword: 'x' });
    const before = readFileSync(store.file, 'utf8');
    expect(() => store.update({ AdminWebListenPort: 0 })).toThrow(/AdminWebListenPort/);
    expect(store.get().AdminWebListenPort).toBe(16601);
    expect(readFileSync(store.file, 'utf8')).toBe(before);
    store.update({ LogLevel: 5 });
    expect(readBaseConfigFile(store.file).LogLevel).toBe(5);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

describe('renamed module keys', () => {
  it('loads a settings file that still names the FTP module by its old key', async () => {
    const { upgradeBaseConfig } = await import('./baseconfig.js');
    expect(upgradeBaseConfig({ EnabledModules: ['ddns', 'ftp', 'webdav'] })).toEqual({ EnabledModules: ['ddns', 'ftpserver', 'webdav'] });
    expect(upgradeBaseConfig({ EnabledModules: ['ftp', 'ftpserver'] })).toEqual({ EnabledModules: ['ftpserver'] });
  });
});
