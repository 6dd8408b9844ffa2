// The native addon's one-step file read and write (native/files.c): the kernel keeps every open
// below the root, and a write is whole or absent.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeAddon, type NativeAddon } from './native.js';

const EXDEV = 18;
const ENOENT = 2;
const EISDIR = 21;

describe('native readBeneath / writeBeneath', () => {
  let addon: NativeAddon;
  let base: string;
  let root: string;
  let outside: string;

  beforeAll(() => {
    // Built by `npm run build` on Linux, as CI does: its absence is a failure here, not a skip.
    addon = nativeAddon()!;
    expect(addon).not.toBeNull();
    base = mkdtempSync(join(tmpdir(), 'lucky-native-files-'));
    root = join(base, 'root');
    outside = join(base, 'outside');
    mkdirSync(join(root, 'sub'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(root, 'sub', 'a.txt'), 'hello');
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    symlinkSync(outside, join(root, 'out'));
    symlinkSync('sub/a.txt', join(root, 'rel'));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('reads a small file whole, gives only the figures of a larger one or a folder', async () => {
    const [err, size, , ino, , data] = await addon.readBeneath(root, 'sub/a.txt', 1024);
    expect([err, size, data?.toString()]).toEqual([0, 5, 'hello']);
    expect(ino).toBeGreaterThan(0);
    expect((await addon.readBeneath(root, 'sub/a.txt', 4))[5]).toBeNull();
    const [dirErr, , , , mode, dirData] = await addon.readBeneath(root, 'sub', 1024);
    expect([dirErr, mode & 0o170000, dirData]).toEqual([0, 0o040000, null]);
    expect((await addon.readBeneath(root, 'rel', 1024))[5]?.toString()).toBe('hello');
    expect((await addon.readBeneath(root, 'nothing', 1024))[0]).toBe(ENOENT);
  });

  it('refuses to leave the root by .. or by a symlink', async () => {
    expect((await addon.readBeneath(root, '../outside/secret.txt', 1024))[0]).toBe(EXDEV);
    expect((await addon.readBeneath(root, 'out/secret.txt', 1024))[0]).toBe(EXDEV);
    expect((await addon.writeBeneath(root, 'out', 'new.txt', '.tmp-a', Buffer.from('x')))[0]).toBe(EXDEV);
    expect((await addon.writeBeneath(root, 'sub/../..', 'new.txt', '.tmp-b', Buffer.from('x')))[0]).toBe(EXDEV);
    expect(readdirSync(outside)).toEqual(['secret.txt']);
  });

  it('writes whole files by rename, says whether one was replaced, leaves no temporary file', async () => {
    const [err, existed, size] = await addon.writeBeneath(root, 'sub', 'w.txt', '.tmp-1', Buffer.from('first'));
    expect([err, existed, size]).toEqual([0, false, 5]);
    const again = await addon.writeBeneath(root, 'sub', 'w.txt', '.tmp-2', Buffer.from('second!'));
    expect([again[0], again[1], again[2]]).toEqual([0, true, 7]);
    expect(readFileSync(join(root, 'sub', 'w.txt'), 'utf8')).toBe('second!');
    expect((await addon.writeBeneath(root, '', 'sub', '.tmp-3', Buffer.from('x')))[0]).toBe(EISDIR);
    // A symlink as the name: not replaced here; the caller's realpath check decides.
    expect((await addon.writeBeneath(root, '', 'rel', '.tmp-4', Buffer.from('x')))[0]).toBe(EXDEV);
    expect(readFileSync(join(root, 'sub', 'a.txt'), 'utf8')).toBe('hello');
    expect((await addon.writeBeneath(root, 'missing', 'x.txt', '.tmp-5', Buffer.from('x')))[0]).toBe(ENOENT);
    expect(readdirSync(join(root, 'sub')).sort()).toEqual(['a.txt', 'w.txt']);
    expect(readdirSync(root).sort()).toEqual(['out', 'rel', 'sub']);
  });

  it('throws on names that are not single names', () => {
    expect(() => addon.writeBeneath(root, '', 'a/b', '.tmp', Buffer.from('x'))).toThrow(/single names/);
    expect(() => addon.writeBeneath(root, '', '..', '.tmp', Buffer.from('x'))).toThrow(/single names/);
    expect(() => addon.writeBeneath(root, '', 'x', '.tmp', 'not a buffer' as unknown as Buffer)).toThrow(/Buffer/);
  });
});
