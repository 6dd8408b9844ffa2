/**
 * What every FTP command shares: its refusals thrown as a reply (`Reply`), a client's path resolved
 * and permitted by the storages service (`target`), and the access log line each command leaves.
 */
import type { StorageOp } from '../../core/services/storages.js';
import { MsgError } from '../../lib/msgerror.js';
import { joinVirtual, PathRefused, resolveTarget, type Target } from './ftp.paths.js';
import type { FtpSession } from './ftp.server.js';

export type Handler = (s: FtpSession, arg: string) => Promise<void> | void;

export const quote = (p: string) => `"${p.replace(/"/g, '""')}"`;

export class Reply extends Error {
  constructor(
    readonly code: number,
    readonly text: string,
  ) {
    super(text);
  }
}

/** A client's path, resolved and permitted, or a reply saying why not (denials are counted). */
export async function target(s: FtpSession, arg: string, op: StorageOp): Promise<Target> {
  try {
    return await resolveTarget(s.server.deps.storages, s.who!, s.rule.mounts, joinVirtual(s.cwd, arg), op);
  } catch (err) {
    if (err instanceof PathRefused) {
      s.server.counters.denied++;
      throw new Reply(err.code, err.reason);
    }
    throw err;
  }
}

/** Runs a command whose refusals are thrown as Reply; the access log gets one line for it. */
export function guarded(verb: string, fn: (s: FtpSession, arg: string) => Promise<{ code: number; text: string; path: string; bytes?: number } | void>, logged = true): Handler {
  return async (s, arg) => {
    try {
      const r = await fn(s, arg);
      if (!r) return;
      s.reply(r.code, r.text);
      if (logged) s.access(verb, r.path, r.code, r.bytes);
    } catch (caught) {
      // A remote storage that failed says why (storageRemoteDown names it).
      const err = caught instanceof MsgError ? fsReply(caught) : caught;
      if (!(err instanceof Reply)) throw err;
      s.reply(err.code, err.text);
      if (logged) s.access(verb, joinVirtual(s.cwd, arg), err.code);
    } finally {
      // ABOR during this transfer: its own reply follows the transfer's.
      if (s.abortPending) {
        s.abortPending = false;
        s.reply(226, 'ABOR successful.');
      }
    }
  };
}

/** A failure of the disk (an errno) or of a remote storage (a MsgError) as the reply that says it. */
export function fsReply(err: unknown): Reply {
  if (err instanceof Reply) return err;
  if (err instanceof MsgError) {
    if (err.msg.key === 'storageNotFound') return new Reply(550, 'No such file or directory.');
    return new Reply(451, `Requested action aborted: ${err.message}.`);
  }
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new Reply(550, 'No such file or directory.');
  if (code === 'EEXIST') return new Reply(550, 'File exists.');
  if (code === 'ENOTEMPTY') return new Reply(550, 'Directory not empty.');
  if (code === 'ENOSPC' || code === 'EDQUOT') return new Reply(552, 'Exceeded storage allocation.');
  if (code === 'EACCES' || code === 'EPERM') return new Reply(550, 'Permission denied.');
  if (code === 'EISDIR' || code === 'ENOTDIR') return new Reply(550, 'Not a plain file.');
  return new Reply(451, 'Requested action aborted: local error in processing.');
}
