/**
 * Static files from one directory: optional listing, Range, ETag/Last-Modified. Nothing outside the
 * root is ever served: `..` and encoded separators are refused, and the real path (symlinks
 * resolved) must stay under the root's real path.
 */
import { promises as fsp, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join, sep } from 'node:path';
import type { z } from 'zod';
import type { ZFileService } from '@lucky/contracts';
import { sendFileBody } from '../../core/filebody.js';
import { contentTypeOf, parseRange } from '../../lib/http/files.js';

type FileService = z.output<typeof ZFileService>;

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** Decoded path segments, or null when the path tries to leave the root or is not decodable. */
export function safeSegments(urlPath: string): string[] | null {
  const out: string[] = [];
  for (const raw of urlPath.split('/')) {
    if (raw === '' || raw === '.') continue;
    let seg: string;
    try {
      seg = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (seg === '..' || seg === '.' || seg.includes('/') || seg.includes('\\') || seg.includes('\0')) return null;
    // Dot files (.git, .env, .htpasswd) are never served; .well-known is (ACME, security.txt).
    if (seg.startsWith('.') && seg !== '.well-known') return null;
    out.push(seg);
  }
  return out;
}

export function etagOf(st: Stats): string {
  return `W/"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
}

export class FileServer {
  private rootReal: Promise<string>;

  constructor(
    private cfg: FileService,
    /** Large bodies by sendfile on plain HTTP/1.1 connections (env.nativeRelay, main thread only). */
    private readonly o: { native: boolean } = { native: false },
  ) {
    this.rootReal = fsp.realpath(cfg.root);
    this.rootReal.catch(() => undefined);
  }

  async serve(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return plain(res, 405, 'method not allowed\n');
    }
    const segs = safeSegments(pathname);
    if (!segs) return plain(res, 403, 'forbidden\n');
    let root: string;
    try {
      root = await this.rootReal;
    } catch {
      // The directory may appear later (a disk mounted after start): look again next time.
      this.rootReal = fsp.realpath(this.cfg.root);
      this.rootReal.catch(() => undefined);
      return plain(res, 503, 'file root is not available\n');
    }
    let real: string;
    try {
      real = await fsp.realpath(join(root, ...segs));
    } catch {
      return plain(res, 404, 'not found\n');
    }
    if (real !== root && !real.startsWith(root.endsWith(sep) ? root : root + sep)) return plain(res, 403, 'forbidden\n');
    let st: Stats;
    try {
      st = await fsp.stat(real);
    } catch {
      return plain(res, 404, 'not found\n');
    }
    if (st.isDirectory()) {
      if (!pathname.endsWith('/')) {
        const q = req.url?.indexOf('?') ?? -1;
        res.writeHead(301, { Location: pathname + '/' + (q >= 0 ? req.url!.slice(q) : ''), 'Content-Length': '0' });
        return void res.end();
      }
      for (const name of this.cfg.index) {
        try {
          const file = await fsp.realpath(join(real, name));
          if (!file.startsWith(root + sep)) continue;
          const fst = await fsp.stat(file);
          if (fst.isFile()) return this.sendFile(req, res, file, fst);
        } catch {
          /* next index name */
        }
      }
      if (!this.cfg.listing) return plain(res, 403, 'forbidden\n');
      return this.list(req, res, real, pathname);
    }
    if (!st.isFile()) return plain(res, 403, 'forbidden\n');
    return this.sendFile(req, res, real, st);
  }

  private async list(req: IncomingMessage, res: ServerResponse, dir: string, pathname: string): Promise<void> {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fsp.readdir(dir, { withFileTypes: true });
    } catch {
      return plain(res, 403, 'forbidden\n');
    }
    entries.sort((a, b) => Number(b.isDirectory()) - Number(a.isDirectory()) || a.name.localeCompare(b.name));
    const title = escapeHtml(decodeURIComponentSafe(pathname));
    const rows = entries
      .filter((e) => !e.name.startsWith('.'))
      .map((e) => {
        const name = e.name + (e.isDirectory() ? '/' : '');
        return `<li><a href="${escapeHtml(encodeURIComponent(e.name) + (e.isDirectory() ? '/' : ''))}">${escapeHtml(name)}</a></li>`;
      });
    const parent = pathname === '/' ? '' : '<li><a href="../">../</a></li>';
    const html = `<!doctype html><meta charset="utf-8"><title>${title}</title><h1>${title}</h1><ul>${parent}${rows.join('')}</ul>\n`;
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(html) });
    res.end(req.method === 'HEAD' ? undefined : html);
  }

  private async sendFile(req: IncomingMessage, res: ServerResponse, file: string, st: Stats): Promise<void> {
    const etag = etagOf(st);
    const lastModified = new Date(Math.floor(st.mtimeMs / 1000) * 1000).toUTCString();
    res.setHeader('ETag', etag);
    res.setHeader('Last-Modified', lastModified);
    res.setHeader('Accept-Ranges', 'bytes');
    const inm = req.headers['if-none-match'];
    const ims = req.headers['if-modified-since'];
    const notModified = inm
      ? inm.split(',').some((t) => t.trim() === etag || t.trim() === '*' || t.trim() === etag.slice(2))
      : ims
        ? Date.parse(ims) >= Math.floor(st.mtimeMs / 1000) * 1000
        : false;
    if (notModified) {
      res.writeHead(304);
      return void res.end();
    }
    let start = 0;
    let end = st.size - 1;
    let status = 200;
    const range = req.headers.range;
    const ifRange = req.headers['if-range'];
    if (range && st.size > 0 && (!ifRange || ifRange === etag || ifRange === lastModified)) {
      const r = parseRange(range, st.size);
      if (r === 'bad') {
        res.writeHead(416, { 'Content-Range': `bytes */${st.size}`, 'Content-Length': '0' });
        return void res.end();
      }
      if (r) {
        start = r.start;
        end = r.end;
        status = 206;
        res.setHeader('Content-Range', `bytes ${start}-${end}/${st.size}`);
      }
    }
    const length = st.size === 0 ? 0 : end - start + 1;
    if (req.method === 'HEAD' || length === 0) {
      res.writeHead(status, { 'Content-Type': contentTypeOf(file), 'Content-Length': length });
      return void res.end();
    }
    let handle: FileHandle;
    try {
      handle = await fsp.open(file, 'r');
    } catch {
      return plain(res, 403, 'forbidden\n');
    }
    res.writeHead(status, { 'Content-Type': contentTypeOf(file), 'Content-Length': length });
    // Streamed in Node's 64 KiB reads: a rule may hold thousands of slow downloads (TLS, serving threads).
    await sendFileBody(req, res, handle, start, length, { native: this.o.native, readBytes: 64 * 1024 });
  }
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
