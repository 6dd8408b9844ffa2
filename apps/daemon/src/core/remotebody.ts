/**
 * A remote storage's file range as the body of an HTTP/1.1 answer, for every server of files that
 * serves remote storages (WebDAV, the file browser). The remote is asked before the head is
 * written, so a remote that refuses or does not answer is still an error answer. A large body on
 * plain connections both ways is passed socket to socket by the native relay (filebody.ts
 * sendPassedBody); anything else is streamed through Node.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { canPassBody, sendPassedBody, type FileBodyOptions } from './filebody.js';
import type { RemoteFs } from './services/storages.js';

/**
 * A remote's body is passed natively from this size on: the pass opens a connection of its own to
 * the remote (one round trip more than the pool's kept connections, many on a far remote), which
 * only a large body repays.
 */
export const REMOTE_PASS_MIN = 1024 * 1024;

export interface RemoteAnswer {
  status: number;
  headers: Record<string, string | number>;
  /** Called once the remote has answered, just before the head is written (Fastify's hijack). */
  beforeHead?: () => void;
  /** Body bytes as they go (the servers' figures). */
  count?: (n: number) => void;
}

/** Bytes `start` to `last` (inclusive) of `path` on `remote` as the answer's body. */
export async function sendRemoteRange(req: IncomingMessage, res: ServerResponse, remote: RemoteFs, path: string, range: { start: number; last: number }, answer: RemoteAnswer, o: FileBodyOptions): Promise<void> {
  const length = range.last - range.start + 1;
  const count = answer.count ?? (() => undefined);
  const raw = canPassBody(req, res, length, { ...o, minNativeBytes: o.minNativeBytes ?? REMOTE_PASS_MIN }) ? await remote.readRaw(path, { start: range.start, end: range.last }) : null;
  if (raw) {
    try {
      answer.beforeHead?.();
      res.writeHead(answer.status, answer.headers);
      const r = await sendPassedBody(req, res, raw, length, o);
      count(raw.head.length + r.bypassed);
    } finally {
      raw.socket.destroy();
    }
    return;
  }
  const body = await remote.read(path, { start: range.start, end: range.last });
  answer.beforeHead?.();
  res.writeHead(answer.status, answer.headers);
  const counter = new Transform({
    transform(c: Buffer, _e, cb) {
      count(c.length);
      cb(null, c);
    },
  });
  await pipeline(body, counter, res).catch(() => {
    // The client went away, or the remote did mid-body: the connection is cut (its head was sent).
    res.destroy();
  });
}
