/** Just enough ustar to write and read release archives: regular files and directories, no links. */

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

/** Regular files only; throws on a malformed archive or any other entry type. */
export function readTar(buf: Buffer, maxEntries = 20_000): TarEntry[] {
  const out: TarEntry[] = [];
  let off = 0;
  while (off + BLOCK <= buf.length) {
    const h = buf.subarray(off, off + BLOCK);
    if (h.every((b) => b === 0)) return out;
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
    const stored = parseInt(field(h, 148, 8).trim(), 8);
    if (stored !== sum) throw new Error(`bad tar header checksum at byte ${off}`);
    const size = parseInt(field(h, 124, 12).trim() || '0', 8);
    if (!Number.isFinite(size) || size < 0) throw new Error(`bad size at byte ${off}`);
    const type = field(h, 156, 1) || '0';
    const prefix = field(h, 345, 155);
    const path = prefix ? `${prefix}/${field(h, 0, 100)}` : field(h, 0, 100);
    const start = off + BLOCK;
    if (start + size > buf.length) throw new Error(`truncated archive at ${path}`);
    if (type === '0') out.push({ path, data: Buffer.from(buf.subarray(start, start + size)) });
    else if (type !== '5') throw new Error(`unsupported entry type "${type}" for ${path}`);
    if (out.length > maxEntries) throw new Error('too many entries');
    off = start + Math.ceil(size / BLOCK) * BLOCK;
  }
  throw new Error('archive ends without its end marker');
}
