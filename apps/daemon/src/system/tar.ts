/** Just enough ustar to write and read release archives: regular files and directories, no links. */
import { Writable } from 'node:stream';

const BLOCK = 512;

export interface TarEntry {
  path: string;
  data: Buffer;
}

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, '0') + '\0';
}

function header(path: string, size: number, mtime: number): Buffer {
  const h = Buffer.alloc(BLOCK, 0);
  let name = path;
  let prefix = '';
  if (Buffer.byteLength(name) > 100) {
    const cut = path.lastIndexOf('/', 155);
    prefix = path.slice(0, cut);
    name = path.slice(cut + 1);
    if (cut <= 0 || Buffer.byteLength(name) > 100 || Buffer.byteLength(prefix) > 155) throw new Error(`path too long for tar: ${path}`);
  }
  h.write(name, 0, 100, 'utf8');
  h.write(octal(0o644, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii');
  h.write(octal(0, 8), 116, 'ascii');
  h.write(octal(size, 12), 124, 'ascii');
  h.write(octal(Math.floor(mtime / 1000), 12), 136, 'ascii');
  h.write('        ', 148, 'ascii');
  h.write('0', 156, 'ascii');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  h.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(octal(sum, 7) + ' ', 148, 'ascii');
  return h;
}

export function writeTar(entries: TarEntry[], mtime = Date.now()): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    parts.push(header(e.path, e.data.length, mtime), e.data);
    const pad = (BLOCK - (e.data.length % BLOCK)) % BLOCK;
    if (pad) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

function field(h: Buffer, start: number, len: number): string {
  const raw = h.subarray(start, start + len);
  const nul = raw.indexOf(0);
  return raw.subarray(0, nul === -1 ? len : nul).toString('utf8');
}

/** A malformed archive (as opposed to one that is refused for what it holds). */
export class TarFormatError extends Error {}

interface Header {
  path: string;
  size: number;
  /** '0' a regular file, '5' a directory; anything else is refused by the readers. */
  type: string;
}

/** One 512-byte header block, not all zeros; `at` is its offset, for the messages. */
function parseHeader(h: Buffer, at: number): Header {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
  const stored = parseInt(field(h, 148, 8).trim(), 8);
  if (stored !== sum) throw new TarFormatError(`bad tar header checksum at byte ${at}`);
  const size = parseInt(field(h, 124, 12).trim() || '0', 8);
  if (!Number.isFinite(size) || size < 0) throw new TarFormatError(`bad size at byte ${at}`);
  const type = field(h, 156, 1) || '0';
  const prefix = field(h, 345, 155);
  const path = prefix ? `${prefix}/${field(h, 0, 100)}` : field(h, 0, 100);
  if (type !== '0' && type !== '5') throw new TarFormatError(`unsupported entry type "${type}" for ${path}`);
  return { path, size, type };
}

const padding = (size: number) => (BLOCK - (size % BLOCK)) % BLOCK;

/** Regular files only; throws on a malformed archive or any other entry type. */
export function readTar(buf: Buffer, maxEntries = 20_000): TarEntry[] {
  const out: TarEntry[] = [];
  let off = 0;
  while (off + BLOCK <= buf.length) {
    const h = buf.subarray(off, off + BLOCK);
    if (h.every((b) => b === 0)) return out;
    const { path, size, type } = parseHeader(h, off);
    const start = off + BLOCK;
    if (start + size > buf.length) throw new TarFormatError(`truncated archive at ${path}`);
    if (type === '0') out.push({ path, data: Buffer.from(buf.subarray(start, start + size)) });
    if (out.length > maxEntries) throw new TarFormatError('too many entries');
    off = start + size + padding(size);
  }
  throw new TarFormatError('archive ends without its end marker');
}

/** Where the content of one file of a streamed archive goes. */
export interface TarSink {
  write(chunk: Buffer): void | Promise<void>;
  end(): void | Promise<void>;
  /** The stream failed before this file's end: release what `write` holds (a file handle). */
  abort?(): void | Promise<void>;
}

export interface TarStreamOptions {
  /** Bound on every byte the stream carries, padding and what follows the end marker included. */
  maxBytes: number;
  maxEntries?: number;
  /** Called for each regular file before its content; throw to refuse it. */
  file(path: string, size: number): TarSink | Promise<TarSink>;
}

/** The stream carried more than `maxBytes`. */
export class TarTooLarge extends Error {
  constructor(readonly max: number) {
    super(`more than ${max} bytes`);
  }
}

/**
 * Reads a tar archive as it streams in, handing each file's content on in the pieces it arrives in:
 * memory stays at one header block plus the chunk in hand, whatever the archive holds.
 */
export class TarReader extends Writable {
  private header = Buffer.alloc(BLOCK);
  private filled = 0;
  private state: 'header' | 'data' | 'padding' | 'end' = 'header';
  /** Bytes left of the current entry's content (data) or of its padding. */
  private left = 0;
  private pad = 0;
  private current = '';
  private sink: TarSink | undefined;
  private entries = 0;
  /** Bytes received, and bytes read up to the end of the current piece. */
  private total = 0;
  private pos = 0;

  constructor(private opts: TarStreamOptions) {
    super();
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    this.take(chunk).then(() => done(), done);
  }

  override _final(done: (err?: Error | null) => void): void {
    if (this.state === 'end') return done();
    if (this.state !== 'header') return done(new TarFormatError(`truncated archive at ${this.current}`));
    done(new TarFormatError(this.filled === 0 ? 'archive ends without its end marker' : `truncated archive at byte ${this.pos}`));
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    const sink = this.sink;
    this.sink = undefined;
    Promise.resolve(sink?.abort?.()).then(() => done(err), () => done(err));
  }

  private async take(chunk: Buffer): Promise<void> {
    this.total += chunk.length;
    if (this.total > this.opts.maxBytes) throw new TarTooLarge(this.opts.maxBytes);
    let i = 0;
    while (i < chunk.length && this.state !== 'end') {
      const n = Math.min(chunk.length - i, this.state === 'header' ? BLOCK - this.filled : this.left);
      const piece = chunk.subarray(i, i + n);
      i += n;
      this.pos += n;
      if (this.state === 'header') await this.headerBytes(piece);
      else if (this.state === 'data') await this.dataBytes(piece);
      else this.paddingBytes(n);
    }
  }

  private async headerBytes(piece: Buffer): Promise<void> {
    piece.copy(this.header, this.filled);
    this.filled += piece.length;
    if (this.filled < BLOCK) return;
    this.filled = 0;
    if (this.header.every((b) => b === 0)) {
      this.state = 'end';
      return;
    }
    const { path, size, type } = parseHeader(this.header, this.pos - BLOCK);
    if (++this.entries > (this.opts.maxEntries ?? 20_000)) throw new TarFormatError('too many entries');
    this.current = path;
    this.sink = type === '0' ? await this.opts.file(path, size) : undefined;
    this.left = size;
    this.pad = padding(size);
    this.state = 'data';
    if (size === 0) await this.endEntry();
  }

  private async dataBytes(piece: Buffer): Promise<void> {
    this.left -= piece.length;
    await this.sink?.write(piece);
    if (this.left === 0) await this.endEntry();
  }

  private paddingBytes(n: number): void {
    this.left -= n;
    if (this.left === 0) this.state = 'header';
  }

  private async endEntry(): Promise<void> {
    await this.sink?.end();
    this.sink = undefined;
    this.left = this.pad;
    this.state = this.pad ? 'padding' : 'header';
  }
}
