/**
 * A streaming zip writer (PKWARE APPNOTE 6.3): entries are written as they are read, each followed
 * by a data descriptor (sizes and CRC are known only at its end), so nothing is buffered beyond one
 * read. Names are UTF-8 (flag bit 11); files that may pass 4 GiB, offsets past 4 GiB and more than
 * 65535 entries use ZIP64 records. Compressed types (jpg, mp4, zip…) are stored, the rest deflated.
 */
import { createReadStream } from 'node:fs';
import { pipeline, Readable } from 'node:stream';
import { constants, crc32, createDeflateRaw } from 'node:zlib';

export interface ZipSource {
  /** The name inside the archive, `/`-separated, no leading slash; folders end with `/`. */
  name: string;
  /** The file to read; absent for a folder (and for a file that `open` reads). */
  real?: string;
  /** A file read through a stream (a remote storage's), opened when the zip reaches it. */
  open?: () => Promise<NodeJS.ReadableStream>;
  /** The size at the time of the walk (decides ZIP64 for the entry; the real count is what is written). */
  size: number;
  mtime: Date;
  mode: number;
}

export interface ZipOptions {
  /** ZIP64 records for every entry and the end (tests prove the ZIP64 path without writing 4 GiB). */
  forceZip64?: boolean;
  /** 1 (fast, the default: a router's CPU is the bottleneck) to 9. */
  level?: number;
}

const STORED = /\.(jpe?g|png|gif|webp|avif|heic|mp[34]|m4[av]|mkv|mov|avi|webm|ogg|opus|flac|aac|zip|gz|tgz|bz2|xz|zst|7z|rar|jar|apk|docx|xlsx|pptx|odt|pdf|woff2?)$/i;
const MAX32 = 0xffffffff;
/** Entries at least this large get ZIP64 sizes: deflate can make a file a little larger than it was. */
const ZIP64_AT = 0xffffffff - 64 * 1024 * 1024;
const FLAGS = (1 << 3) | (1 << 11);
const MADE_BY_UNIX = 3 << 8;

function dosTime(d: Date): { time: number; date: number } {
  const y = d.getFullYear();
  if (y < 1980) return { time: 0, date: (1 << 5) | 1 };
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | Math.floor(d.getSeconds() / 2),
    date: ((y - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}

interface Written {
  name: Buffer;
  method: number;
  time: number;
  date: number;
  crc: number;
  csize: number;
  usize: number;
  offset: number;
  zip64: boolean;
  external: number;
}

function localHeader(name: Buffer, method: number, t: { time: number; date: number }, zip64: boolean): Buffer {
  const extra = zip64 ? 20 : 0;
  const b = Buffer.alloc(30 + name.length + extra);
  b.writeUInt32LE(0x04034b50, 0);
  b.writeUInt16LE(zip64 ? 45 : 20, 4);
  b.writeUInt16LE(FLAGS, 6);
  b.writeUInt16LE(method, 8);
  b.writeUInt16LE(t.time, 10);
  b.writeUInt16LE(t.date, 12);
  // crc and sizes follow in the data descriptor; ZIP64 marks the 32-bit sizes as "see the extra field"
  b.writeUInt32LE(0, 14);
  b.writeUInt32LE(zip64 ? MAX32 : 0, 18);
  b.writeUInt32LE(zip64 ? MAX32 : 0, 22);
  b.writeUInt16LE(name.length, 26);
  b.writeUInt16LE(extra, 28);
  name.copy(b, 30);
  if (zip64) {
    const e = 30 + name.length;
    b.writeUInt16LE(0x0001, e);
    b.writeUInt16LE(16, e + 2);
    // both sizes zero here: they are in the data descriptor
  }
  return b;
}

function descriptor(w: Written): Buffer {
  if (w.zip64) {
    const b = Buffer.alloc(24);
    b.writeUInt32LE(0x08074b50, 0);
    b.writeUInt32LE(w.crc, 4);
    b.writeBigUInt64LE(BigInt(w.csize), 8);
    b.writeBigUInt64LE(BigInt(w.usize), 16);
    return b;
  }
  const b = Buffer.alloc(16);
  b.writeUInt32LE(0x08074b50, 0);
  b.writeUInt32LE(w.crc, 4);
  b.writeUInt32LE(w.csize, 8);
  b.writeUInt32LE(w.usize, 12);
  return b;
}

function centralHeader(w: Written, force: boolean): Buffer {
  const big = (n: number) => force || n >= MAX32;
  const fields: number[] = [];
  if (w.zip64 || big(w.usize)) fields.push(w.usize);
  if (w.zip64 || big(w.csize)) fields.push(w.csize);
  if (big(w.offset)) fields.push(w.offset);
  const extra = fields.length > 0 ? 4 + 8 * fields.length : 0;
  const b = Buffer.alloc(46 + w.name.length + extra);
  b.writeUInt32LE(0x02014b50, 0);
  b.writeUInt16LE(MADE_BY_UNIX | 45, 4);
  b.writeUInt16LE(extra ? 45 : 20, 6);
  b.writeUInt16LE(FLAGS, 8);
  b.writeUInt16LE(w.method, 10);
  b.writeUInt16LE(w.time, 12);
  b.writeUInt16LE(w.date, 14);
  b.writeUInt32LE(w.crc, 16);
  b.writeUInt32LE(w.zip64 || big(w.csize) ? MAX32 : w.csize, 20);
  b.writeUInt32LE(w.zip64 || big(w.usize) ? MAX32 : w.usize, 24);
  b.writeUInt16LE(w.name.length, 28);
  b.writeUInt16LE(extra, 30);
  b.writeUInt16LE(0, 32);
  b.writeUInt16LE(0, 34);
  b.writeUInt16LE(0, 36);
  b.writeUInt32LE(w.external >>> 0, 38);
  b.writeUInt32LE(big(w.offset) ? MAX32 : w.offset, 42);
  w.name.copy(b, 46);
  if (extra) {
    let p = 46 + w.name.length;
    b.writeUInt16LE(0x0001, p);
    b.writeUInt16LE(8 * fields.length, p + 2);
    p += 4;
    for (const f of fields) {
      b.writeBigUInt64LE(BigInt(f), p);
      p += 8;
    }
  }
  return b;
}

function endRecords(count: number, cdOffset: number, cdSize: number, force: boolean): Buffer {
  const zip64 = force || count >= 0xffff || cdOffset >= MAX32 || cdSize >= MAX32;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(zip64 ? 0xffff : count, 8);
  end.writeUInt16LE(zip64 ? 0xffff : count, 10);
  end.writeUInt32LE(zip64 ? MAX32 : cdSize, 12);
  end.writeUInt32LE(zip64 ? MAX32 : cdOffset, 16);
  if (!zip64) return end;
  const rec = Buffer.alloc(56);
  rec.writeUInt32LE(0x06064b50, 0);
  rec.writeBigUInt64LE(44n, 4);
  rec.writeUInt16LE(MADE_BY_UNIX | 45, 12);
  rec.writeUInt16LE(45, 14);
  rec.writeBigUInt64LE(BigInt(count), 24);
  rec.writeBigUInt64LE(BigInt(count), 32);
  rec.writeBigUInt64LE(BigInt(cdSize), 40);
  rec.writeBigUInt64LE(BigInt(cdOffset), 48);
  const loc = Buffer.alloc(20);
  loc.writeUInt32LE(0x07064b50, 0);
  loc.writeBigUInt64LE(BigInt(cdOffset + cdSize), 8);
  loc.writeUInt32LE(1, 16);
  return Buffer.concat([rec, loc, end]);
}

/** The archive as a stream of buffers, reading each file only when the reader asks for more. */
export async function* zipStream(sources: AsyncIterable<ZipSource> | Iterable<ZipSource>, opts: ZipOptions = {}): AsyncGenerator<Buffer> {
  const force = opts.forceZip64 === true;
  const written: Written[] = [];
  let offset = 0;
  for await (const s of sources) {
    const dir = s.real === undefined && s.open === undefined;
    const name = Buffer.from(dir && !s.name.endsWith('/') ? `${s.name}/` : s.name, 'utf8');
    const method = dir || STORED.test(s.name) || s.size === 0 ? 0 : 8;
    const t = dosTime(s.mtime);
    const zip64 = !dir && (force || s.size >= ZIP64_AT);
    const w: Written = {
      name,
      method,
      ...t,
      crc: 0,
      csize: 0,
      usize: 0,
      offset,
      zip64,
      // Unix mode in the high half; MS-DOS directory bit for folders.
      external: ((s.mode & 0xffff) << 16) | (dir ? 0x10 : 0),
    };
    const head = localHeader(name, method, t, zip64);
    offset += head.length;
    yield head;
    if (!dir) {
      const src = (s.open ? await s.open() : createReadStream(s.real!, { highWaterMark: 1 << 20 })) as Readable;
      const counted = async function* () {
        for await (const c of src as AsyncIterable<Buffer>) {
          w.crc = crc32(c, w.crc);
          w.usize += c.length;
          yield c;
        }
      };
      let body: AsyncIterable<Buffer>;
      if (method === 8) {
        const deflate = createDeflateRaw({ level: opts.level ?? 1, memLevel: 8, strategy: constants.Z_DEFAULT_STRATEGY });
        body = pipeline(Readable.from(counted()), deflate, () => undefined) as unknown as AsyncIterable<Buffer>;
      } else body = counted();
      try {
        for await (const c of body) {
          w.csize += c.length;
          offset += c.length;
          yield c;
        }
      } finally {
        src.destroy();
      }
    }
    const dd = descriptor(w);
    offset += dd.length;
    yield dd;
    written.push(w);
  }
  const cdOffset = offset;
  let cdSize = 0;
  // The central directory, a batch of headers at a time (one Buffer per entry would be many small writes).
  let batch: Buffer[] = [];
  let batchLen = 0;
  for (const w of written) {
    const h = centralHeader(w, force);
    batch.push(h);
    batchLen += h.length;
    cdSize += h.length;
    if (batchLen >= 1 << 16) {
      yield Buffer.concat(batch);
      batch = [];
      batchLen = 0;
    }
  }
  if (batch.length > 0) yield Buffer.concat(batch);
  yield endRecords(written.length, cdOffset, cdSize, force);
}
