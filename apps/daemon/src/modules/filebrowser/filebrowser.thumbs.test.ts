/**
 * Thumbnails against a real daemon and real image files (made here with sharp): WebP of the size
 * asked for JPEG, PNG, WebP and GIF (never enlarged), the cache hit, a changed file given a new
 * thumbnail, the cache kept within its cap (least recently used out first), and refusals as
 * {ret, msg} in the caller's language: not an image, SVG, a decompression bomb, a folder, a path
 * out of the storage.
 */
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeStorage, tempDir } from '../../test/storages.js';
import { api, q, raw, startFb } from './testing/fb.js';

type D = Awaited<ReturnType<typeof startFb>>;

/** Noise (incompressible: its thumbnails are large) or a flat colour. */
function image(width: number, height: number, seed = 0): sharp.Sharp {
  if (seed === 0) return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 20 } } });
  const px = Buffer.alloc(width * height * 3);
  let x = seed;
  for (let i = 0; i < px.length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    px[i] = x >>> 24;
  }
  return sharp(px, { raw: { width, height, channels: 3 } });
}

/** A PNG whose header says 30000 × 30000 (900 megapixels) with almost no data: a decompression bomb's shape. */
function bombPng(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(30000, 0);
  ihdr.writeUInt32BE(30000, 4);
  ihdr.set([8, 0, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.alloc(30001))), chunk('IEND', Buffer.alloc(0))]);
}

describe('file browser thumbnails', () => {
  let d: D;
  let dataDir: string;
  let root: string;
  let s1: string;

  const thumb = (path: string, size = '128', lang = 'en_US') => raw(d, 'GET', `/api/filebrowser/thumb?${q({ storage: s1, path, size })}`, { headers: { 'lucky-lang': lang } });
  const cached = () => readdirSync(join(dataDir, 'thumbs'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  const configure = async (patch: Record<string, unknown>) => {
    const conf = await api<{ configure: Record<string, unknown> }>(d, 'GET', '/api/filebrowser/configure');
    expect((await api(d, 'PUT', '/api/filebrowser/configure', { ...conf.configure, ...patch })).ret).toBe(0);
  };

  beforeAll(async () => {
    dataDir = tempDir('thumbdata');
    d = await startFb({ dataDir });
    root = tempDir('thumbs');
    mkdirSync(join(root, 'noise'));
    await image(800, 600).jpeg().toFile(join(root, 'photo.jpg'));
    await image(300, 1000).png().toFile(join(root, 'tall.png'));
    await image(640, 480).webp().toFile(join(root, 'pic.webp'));
    await image(50, 40).gif().toFile(join(root, 'small.gif'));
    for (let i = 1; i <= 6; i++) await image(512, 512, i).png({ compressionLevel: 1 }).toFile(join(root, 'noise', `n${i}.png`));
    writeFileSync(join(root, 'fake.jpg'), 'this is text, not a JPEG');
    writeFileSync(join(root, 'drawing.svg'), '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>');
    writeFileSync(join(root, 'bomb.png'), bombPng());
    s1 = await makeStorage(d, { name: 'pics', path: root });
  });
  afterAll(async () => {
    await d.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('makes WebP thumbnails of the size asked, never enlarged, and answers the second from the cache', async () => {
    const cases: Array<[string, string, number, number]> = [
      ['/photo.jpg', '128', 128, 96],
      ['/tall.png', '128', 38, 128],
      ['/pic.webp', '256', 256, 192],
      ['/small.gif', '128', 50, 40],
    ];
    for (const [path, size, w, h] of cases) {
      const r = await thumb(path, size);
      expect(r.status, path).toBe(200);
      expect(r.headers['content-type']).toBe('image/webp');
      expect(r.headers['x-lucky-thumb']).toBe('made');
      const meta = await sharp(r.body).metadata();
      expect([meta.format, meta.width, meta.height], path).toEqual(['webp', w, h]);
    }
    expect(cached()).toHaveLength(4);
    const again = await thumb('/photo.jpg');
    expect(again.headers['x-lucky-thumb']).toBe('cached');
    expect((await sharp(again.body).metadata()).width).toBe(128);
    expect(cached()).toHaveLength(4);
  });

  it('gives a changed file a new thumbnail', async () => {
    await image(400, 400).jpeg().toFile(join(root, 'photo.jpg'));
    const r = await thumb('/photo.jpg');
    expect(r.headers['x-lucky-thumb']).toBe('made');
    expect(await sharp(r.body).metadata()).toMatchObject({ width: 128, height: 128 });
  });

  it('keeps the cache within its cap, the least recently used out first', async () => {
    await configure({ thumbCacheMb: 1 });
    const sizes: number[] = [];
    for (let i = 1; i <= 6; i++) {
      const r = await thumb(`/noise/n${i}.png`, '512');
      expect(r.status).toBe(200);
      sizes.push(r.body.length);
      // n1 used again after each other one: it stays, the others go in the order they were made.
      if (i > 1) expect((await thumb('/noise/n1.png', '512')).headers['x-lucky-thumb']).toBe('cached');
    }
    expect(sizes.reduce((a, b) => a + b, 0)).toBeGreaterThan(1 << 20);
    const total = cached().reduce((n, e) => n + statSync(join(e.parentPath, e.name)).size, 0);
    expect(total).toBeLessThanOrEqual(1 << 20);
    expect((await thumb('/noise/n1.png', '512')).headers['x-lucky-thumb']).toBe('cached');
    expect((await thumb('/noise/n6.png', '512')).headers['x-lucky-thumb']).toBe('cached');
    expect((await thumb('/noise/n2.png', '512')).headers['x-lucky-thumb']).toBe('made');
    await configure({ thumbCacheMb: 64 });
  });

  it('refuses what is no image, a decompression bomb, a folder and a path out of the storage, in the caller\'s language', async () => {
    const refused = async (path: string, lang = 'en_US') => {
      const r = await thumb(path, '128', lang);
      expect(r.headers['content-type']).toMatch(/json/);
      return r.json();
    };
    expect(await refused('/fake.jpg')).toEqual({ ret: 1, msg: 'no thumbnail: /fake.jpg is not a supported image (JPEG, PNG, WebP, GIF, AVIF, TIFF)' });
    expect((await refused('/fake.jpg', 'zh_CN')).msg).toBe('无法生成缩略图：/fake.jpg 不是支持的图片（JPEG、PNG、WebP、GIF、AVIF、TIFF）');
    expect(await refused('/drawing.svg')).toMatchObject({ ret: 1, msg: expect.stringContaining('not a supported image') });
    expect(await refused('/bomb.png')).toEqual({ ret: 1, msg: 'no thumbnail: the image /bomb.png has 900 megapixels, more than the limit of 40' });
    expect(await refused('/noise')).toMatchObject({ ret: 1 });
    expect(await refused('/missing.png')).toMatchObject({ ret: 3 });
    expect(await refused('/../outside.png')).toMatchObject({ ret: 1 });
    expect((await api(d, 'GET', `/api/filebrowser/thumb?${q({ storage: s1, path: '/photo.jpg', size: '100' })}`)).ret).toBe(1);
  });
});
