/**
 * What every server of files here needs to say about a file over HTTP (web services' file server,
 * WebDAV, the file browser, the console's own files): its content type, and which bytes a Range
 * header asks for.
 */
import { extname } from 'node:path';

const TEXT = 'charset=utf-8';
const TYPES: Record<string, string> = {
  '.html': `text/html; ${TEXT}`,
  '.htm': `text/html; ${TEXT}`,
  '.css': `text/css; ${TEXT}`,
  '.js': `text/javascript; ${TEXT}`,
  '.mjs': `text/javascript; ${TEXT}`,
  '.json': `application/json; ${TEXT}`,
  '.map': `application/json; ${TEXT}`,
  '.webmanifest': `application/manifest+json; ${TEXT}`,
  '.txt': `text/plain; ${TEXT}`,
  '.log': `text/plain; ${TEXT}`,
  '.md': `text/markdown; ${TEXT}`,
  '.csv': `text/csv; ${TEXT}`,
  '.xml': 'application/xml',
  '.pdf': 'application/pdf',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.bmp': 'image/bmp',
  '.ico': 'image/x-icon',
  '.mp3': 'audio/mpeg',
  '.m4a': 'audio/mp4',
  '.ogg': 'audio/ogg',
  '.opus': 'audio/ogg',
  '.flac': 'audio/flac',
  '.wav': 'audio/wav',
  '.aac': 'audio/aac',
  '.mp4': 'video/mp4',
  '.m4v': 'video/mp4',
  '.webm': 'video/webm',
  '.mkv': 'video/x-matroska',
  '.mov': 'video/quicktime',
  '.zip': 'application/zip',
  '.gz': 'application/gzip',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
};

/** The content type of a file by its name's extension; application/octet-stream when unknown. */
export function contentTypeOf(name: string): string {
  return TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * One `bytes=` range of a file of `size` bytes: the bytes to send, null to send the whole file
 * (several ranges, which RFC 9110 lets a server answer whole), 'bad' for a 416.
 */
export function parseRange(header: string, size: number): { start: number; end: number } | null | 'bad' {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return header.includes(',') ? null : 'bad';
  const [, a, b] = m;
  if (a === '' && b === '') return 'bad';
  let start: number;
  let end: number;
  if (a === '') {
    const n = Number(b);
    if (n === 0) return 'bad';
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(a);
    end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
  }
  if (start > end || start >= size) return 'bad';
  return { start, end };
}
