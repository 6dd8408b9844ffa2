/**
 * What the remote kinds spoken over HTTP (WebDAV, S3) share: one pool of kept connections per
 * storage, and a range read left unread on its own connection for the native relay
 * (lib/http/rawget.ts).
 */
import type { LookupFunction } from 'node:net';
import { Agent } from 'undici';
import type { PassedBody } from '../../../core/filebody.js';
import { rawGetRange } from '../../../lib/http/rawget.js';
import { MsgError } from '../../../lib/msgerror.js';
import { remoteDown } from './down.js';

/** How long a remote may take to begin its answer. */
const HEAD_TIMEOUT_MS = 30_000;

/** A storage's pool: 16 connections kept 10 s, an answer begun within 30 s and never silent for a minute. */
export function remoteAgent(connect: { rejectUnauthorized?: boolean; lookup?: LookupFunction }): Agent {
  return new Agent({ connections: 16, keepAliveTimeout: 10_000, headersTimeout: HEAD_TIMEOUT_MS, bodyTimeout: 60_000, connect });
}

/**
 * The bytes `start` to `end` of a plain http URL (`headers` signed or authorised by the caller),
 * left unread for the relay; null when the answer cannot be passed as it is (read() decides).
 * A missing name is `storageNotFound`; a failure or another status is the remote's.
 */
export async function passedRange(name: string, url: URL, headers: Record<string, string>, range: { start: number; end: number }, lookup?: LookupFunction): Promise<PassedBody | null> {
  let a: Awaited<ReturnType<typeof rawGetRange>>;
  try {
    a = await rawGetRange(url, headers, range, HEAD_TIMEOUT_MS, lookup);
  } catch (err) {
    throw remoteDown(name, (err as Error).message);
  }
  if (a.status === 404) throw new MsgError({ key: 'storageNotFound' });
  // A 200/206 without the length asked (chunked, or the file changed) has a null body.
  if (a.status !== 200 && a.status !== 206) throw remoteDown(name, { key: 'storageRemoteStatus', vars: { status: a.status } });
  return a.body;
}
