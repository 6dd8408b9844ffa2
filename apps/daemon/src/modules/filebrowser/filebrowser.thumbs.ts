/**
 * Image thumbnails: made on demand with sharp (libvips inside this process, from its npm packages;
 * no command is ever run on a file), WebP, the longest side the size asked (never enlarged),
 * turned as the EXIF orientation says; GIF and WebP animations give their first frame.
 *
 * - Refused before decoding: anything sharp's header read does not call a JPEG, PNG, WebP, GIF,
 *   AVIF or TIFF (SVG and PDF are never rendered), and images of more than FB_THUMB_PIXELS_MAX
 *   pixels (decompression bombs: the header's dimensions, and libvips' own limitInputPixels).
 * - At most THUMB_JOBS made at once (one libvips thread each); THUMB_QUEUE more wait, others are
 *   refused as busy. The same thumbnail asked twice at once is made once.
 * - Cached on disk in `<data>/thumbs/`, named by a hash of storage, path, mtime, size and the size
 *   asked (a changed file has another name: the old thumbnail ages out); the total bytes kept
 *   within the setting thumbCacheMb, the least recently used removed first (use refreshes the
 *   file's mtime, so the order survives a restart). sharp is imported on the first thumbnail.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FB_THUMB_PIXELS_MAX, Ret } from '@lucky/contracts';
import { AppError, fail } from '../../core/envelope.js';

export const THUMB_JOBS = 2;
export const THUMB_QUEUE = 64;
const FORMATS = new Set(['jpeg', 'png', 'webp', 'gif', 'avif', 'tiff']);
/** Files that were no image, by key: not tried again while they stay the same. */
const REFUSED_MAX = 1000;

type SharpModule = (typeof import('sharp'))['default'];
let sharpModule: Promise<SharpModule> | null = null;

async function loadSharp(): Promise<SharpModule> {
  sharpModule ??= import('sharp').then((m) => {
    const sharp = m.default;
    // No libvips operation cache (memory), one libvips thread per image: THUMB_JOBS bound the CPU.
    sharp.cache(false);
    sharp.concurrency(1);
    return sharp;
  });
  return sharpModule;
}

export interface ThumbSource {
  storage: string;
  /** The path inside the storage (for messages and the key). */
  path: string;
  real: string;
  /** The image's bytes when it is not on disk (a remote storage's, read whole: its size was checked). */
  load?: () => Promise<Buffer>;
  mtimeMs: number;
  size: number;
}

/** The thumbnail of an image at most `px` on its longest side, as WebP. */
export async function makeThumb(src: ThumbSource, px: number): Promise<Buffer> {
  const sharp = await loadSharp();
  const input = src.load ? await src.load() : src.real;
  let meta;
  try {
    // The header only (no pixel decoded): format and dimensions, judged here before any decoding.
    meta = await sharp(input, { limitInputPixels: false, failOn: 'error' }).metadata();
  } catch {
    throw fail(Ret.badRequest, 'fbThumbNotImage', { path: src.path });
  }
  if (!meta.format || !FORMATS.has(meta.format)) throw fail(Ret.badRequest, 'fbThumbNotImage', { path: src.path });
  const pixels = (meta.width ?? 0) * (meta.pageHeight ?? meta.height ?? 0);
  if (pixels > FB_THUMB_PIXELS_MAX || !meta.width || !meta.height) {
    throw fail(Ret.badRequest, 'fbThumbTooLarge', { path: src.path, pixels: Math.round(pixels / 1e5) / 10, max: FB_THUMB_PIXELS_MAX / 1e6 });
  }
  const img = sharp(input, { limitInputPixels: FB_THUMB_PIXELS_MAX, failOn: 'error', sequentialRead: true, animated: false });
  try {
    return await img.rotate().resize(px, px, { fit: 'inside', withoutEnlargement: true }).webp({ quality: 72, effort: 2 }).toBuffer();
  } catch (err) {
    const detail = err instanceof Error ? err.message.split('\n')[0]!.slice(0, 200) : String(err);
    if (/pixel limit/i.test(detail)) throw fail(Ret.badRequest, 'fbThumbTooLarge', { path: src.path, pixels: Math.round(pixels / 1e5) / 10, max: FB_THUMB_PIXELS_MAX / 1e6 });
    throw fail(Ret.failed, 'fbThumbFailed', { path: src.path, detail });
  }
}

export class ThumbCache {
  /** key → bytes, least recently used first. */
  private readonly files = new Map<string, number>();
  private total = 0;
  private loaded: Promise<void> | null = null;
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly inflight = new Map<string, Promise<Buffer>>();
  private readonly refused = new Map<string, AppError>();
  /** Bytes kept at most (the setting thumbCacheMb). */
  cap = 64 << 20;
  /** Figures, for tests and the bench. */
  made = 0;
  hits = 0;

  constructor(readonly dir: string) {}

  static keyOf(src: ThumbSource, px: number): string {
    return createHash('sha256').update(`${src.storage}\0${src.path}\0${src.mtimeMs}\0${src.size}\0${px}`).digest('hex');
  }

  private fileOf(key: string): string {
    return join(this.dir, key.slice(0, 2), `${key}.webp`);
  }

  /** What is on disk from before (a restart): oldest use first, by mtime. */
  private load(): Promise<void> {
    this.loaded ??= (async () => {
      const found: Array<{ key: string; bytes: number; mtime: number }> = [];
      let subs: string[] = [];
      try {
        subs = await readdir(this.dir);
      } catch {
        return;
      }
      for (const sub of subs) {
        let names: string[] = [];
        try {
          names = await readdir(join(this.dir, sub));
        } catch {
          continue;
        }
        for (const n of names) {
          const p = join(this.dir, sub, n);
          if (!/^[0-9a-f]{64}\.webp$/.test(n)) {
            await rm(p, { force: true }).catch(() => undefined);
            continue;
          }
          const s = await stat(p).catch(() => null);
          if (s?.isFile()) found.push({ key: n.slice(0, 64), bytes: s.size, mtime: s.mtimeMs });
        }
      }
      found.sort((a, b) => a.mtime - b.mtime);
      for (const f of found) {
        this.files.set(f.key, f.bytes);
        this.total += f.bytes;
      }
      await this.evict();
    })();
    return this.loaded;
  }

  /** Bytes and files kept now. */
  async usage(): Promise<{ bytes: number; files: number }> {
    await this.load();
    return { bytes: this.total, files: this.files.size };
  }

  private async evict(): Promise<void> {
    for (const [key, bytes] of this.files) {
      if (this.total <= this.cap) break;
      this.files.delete(key);
      this.total -= bytes;
      await rm(this.fileOf(key), { force: true }).catch(() => undefined);
    }
  }

  private async slot(): Promise<void> {
    if (this.running < THUMB_JOBS) {
      this.running++;
      return;
    }
    if (this.waiting.length >= THUMB_QUEUE) throw fail(Ret.notAvailable, 'fbThumbBusy');
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }

  /** The thumbnail from the cache (`cached`), or made now (and kept). */
  async get(src: ThumbSource, px: number): Promise<{ data: Buffer; cached: boolean }> {
    await this.load();
    const key = ThumbCache.keyOf(src, px);
    const refused = this.refused.get(key);
    if (refused) throw refused;
    if (this.files.has(key)) {
      try {
        const buf = await readFile(this.fileOf(key));
        this.files.delete(key);
        this.files.set(key, buf.length);
        this.hits++;
        const now = new Date();
        void utimes(this.fileOf(key), now, now).catch(() => undefined);
        return { data: buf, cached: true };
      } catch {
        this.total -= this.files.get(key) ?? 0;
        this.files.delete(key);
      }
    }
    let job = this.inflight.get(key);
    if (!job) {
      job = this.make(key, src, px).finally(() => this.inflight.delete(key));
      this.inflight.set(key, job);
    }
    return { data: await job, cached: false };
  }

  private async make(key: string, src: ThumbSource, px: number): Promise<Buffer> {
    await this.slot();
    let buf: Buffer;
    try {
      buf = await makeThumb(src, px);
      this.made++;
    } catch (err) {
      if (err instanceof AppError && err.ret === Ret.badRequest) {
        if (this.refused.size >= REFUSED_MAX) this.refused.delete(this.refused.keys().next().value!);
        this.refused.set(key, err);
      }
      throw err;
    } finally {
      this.release();
    }
    if (buf.length <= this.cap) {
      const file = this.fileOf(key);
      const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
      try {
        await mkdir(join(this.dir, key.slice(0, 2)), { recursive: true });
        await writeFile(tmp, buf);
        await rename(tmp, file);
        this.total -= this.files.get(key) ?? 0;
        this.files.delete(key);
        this.files.set(key, buf.length);
        this.total += buf.length;
        await this.evict();
      } catch {
        // A full disk or a read-only data folder: the thumbnail is still answered.
        await rm(tmp, { force: true }).catch(() => undefined);
      }
    }
    return buf;
  }
}
