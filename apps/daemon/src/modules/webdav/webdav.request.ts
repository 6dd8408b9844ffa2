/**
 * What every WebDAV method does with its request the same way: headers read as one string, the
 * body read within a bound (telling a client that waits on `Expect: 100-continue` to send it), the
 * answer decided early (`Answer`), and a filesystem error turned into the status a client expects.
 */
import type { Stats } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DAV, parseXml, XmlError, type XmlElement } from '../../lib/xml.js';
import { MsgError } from '../../lib/msgerror.js';
import type { DavCounters } from './webdav.site.js';

/** An answer decided before the method ran to the end. */
export class Answer extends Error {
  constructor(
    readonly status: number,
    /** A DAV:error precondition element name (`propfind-finite-depth`...), sent as the body. */
    readonly condition?: string,
  ) {
    super(String(status));
  }
}

export const MAX_XML = 1 << 20;
/** Files up to this size are read whole in the storages' one-step read and sent in one write. */
export const SMALL_FILE = 64 * 1024;
export const ALLOW = 'OPTIONS, GET, HEAD, PUT, DELETE, PROPFIND, PROPPATCH, MKCOL, COPY, MOVE, LOCK, UNLOCK';

/** What a validator is made of: a stat, or the storages' read result. */
export type Meta = Pick<Stats, 'ino' | 'size' | 'mtimeMs'>;

export function etagOf(s: Meta): string {
  return `"${s.ino.toString(16)}-${s.size.toString(16)}-${Math.floor(s.mtimeMs * 1000).toString(16)}"`;
}

/** A header as one string (Node gives arrays for a few repeated ones). */
export const hdr = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
};

/** The Depth header of a PROPFIND; absent means infinity (RFC 4918 §9.1). */
export function depthOf(h: string | undefined): { depth: string; noroot: boolean } {
  const parts = (h ?? 'infinity').toLowerCase().split(',').map((x) => x.trim());
  return { depth: parts[0]!, noroot: parts.includes('noroot') };
}

/** What a filesystem error means to a client. */
/** The remote behind a remote storage failed this request. */
export const isRemoteDown = (err: unknown): boolean => err instanceof MsgError && err.msg.key === 'storageRemoteDown';

export function statusOfFsError(err: unknown): number {
  // A bad gateway, as a proxy says it.
  if (isRemoteDown(err)) return 502;
  switch ((err as NodeJS.ErrnoException | null)?.code) {
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return 403;
    case 'ENOENT':
      return 404;
    case 'ENOTDIR':
    case 'EEXIST':
      return 409;
    case 'ENOSPC':
    case 'EDQUOT':
      return 507;
    case 'EISDIR':
      return 405;
    case 'ENAMETOOLONG':
      return 414;
    default:
      return 500;
  }
}

/** Bytes read from each request, for its access log line. */
export const received = new WeakMap<IncomingMessage, number>();

/** Requests that sent `Expect: 100-continue` and wait for our go-ahead before their body. */
export const awaiting = new WeakMap<IncomingMessage, ServerResponse>();

/** The body is wanted now: a client that asked first is told to send it. */
export function goAhead(req: IncomingMessage): void {
  const res = awaiting.get(req);
  if (!res) return;
  awaiting.delete(req);
  res.writeContinue();
}

export async function readBody(req: IncomingMessage, limit: number, counters: DavCounters): Promise<string> {
  return (await readBytes(req, limit, counters)).toString('utf8');
}

export async function readBytes(req: IncomingMessage, limit: number, counters: DavCounters): Promise<Buffer> {
  goAhead(req);
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    n += c.length;
    counters.bytesIn += c.length;
    received.set(req, n);
    if (n > limit) throw new Answer(413);
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}

/** A request body that must be one DAV element: its root, or 400 (bad XML, or another element). */
export function davBody(body: string, name: string): XmlElement {
  let root: XmlElement;
  try {
    root = parseXml(body);
  } catch (err) {
    if (err instanceof XmlError) throw new Answer(400);
    throw err;
  }
  if (root.ns !== DAV || root.name !== name) throw new Answer(400);
  return root;
}

/** A multistatus answer (207) of the given responses. */
export function multistatus(res: ServerResponse, parts: string[]): void {
  const body = `<?xml version="1.0" encoding="utf-8"?>\n<D:multistatus xmlns:D="DAV:">${parts.join('')}</D:multistatus>\n`;
  res.writeHead(207, { 'content-type': 'application/xml; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
