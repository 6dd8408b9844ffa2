/**
 * Listings: LIST, NLST and MLSD over a data connection, MLST and STAT on the control one. The
 * virtual root lists the mounts the user may see; links are listed only where they stay inside.
 * A folder's entries, on disk or on a remote, come from ftp.storage.ts.
 */
import { Readable } from 'node:stream';
import { MsgError } from '../../lib/msgerror.js';
import { entryOf, listLine, mlsxLine, virtualDir, type Entry } from './ftp.list.js';
import { joinVirtual, locate, type Target } from './ftp.paths.js';
import { fsReply, guarded, Reply, target, type Handler } from './ftp.reply.js';
import type { FtpSession } from './ftp.server.js';
import { entriesOf, statOf } from './ftp.storage.js';
import { sendData } from './ftp.transfer.js';

/** What a listing shows: the mounts at the virtual root, a folder's entries, or one file. */
async function listingOf(s: FtpSession, arg: string): Promise<{ items: AsyncIterable<Entry> | Entry[]; target: Target | null; path: string; single: boolean }> {
  // `LIST -la`, `LIST -a dir`: options of ls that clients send; they change nothing here.
  const path = arg.replace(/^(-[A-Za-z]+\s*)+/, '');
  const virtual = joinVirtual(s.cwd, path);
  if (locate(virtual, s.rule.mounts).kind === 'root') {
    const grants = new Set(s.server.deps.storages.grants(s.who!, { remote: true }).map((g) => g.storage));
    return { items: s.rule.mounts.filter((m) => grants.has(m.storage)).map((m) => virtualDir(m.name)), target: null, path: '/', single: false };
  }
  const t = await target(s, path, 'read');
  const st = await statOf(t);
  if (!st) throw new Reply(550, 'No such file or directory.');
  if (!st.isDirectory()) return { items: [entryOf(t.virtual.slice(t.virtual.lastIndexOf('/') + 1), st)], target: t, path: t.virtual, single: true };
  const resolveLink = async (inner: string) => (await s.server.deps.storages.resolve(t.grant, inner, 'read').catch(() => null))?.real ?? null;
  return { items: await entriesOf(t, resolveLink), target: t, path: t.virtual, single: false };
}

async function* lines<T>(items: AsyncIterable<T> | T[], format: (e: T) => string): AsyncGenerator<string> {
  let batch = '';
  for await (const e of items) {
    batch += `${format(e)}\r\n`;
    if (batch.length > 16 * 1024) {
      yield batch;
      batch = '';
    }
  }
  if (batch) yield batch;
}

export function listCommand(verb: 'LIST' | 'NLST' | 'MLSD'): Handler {
  return guarded(
    verb,
    async (s, arg) => {
      const l = await listingOf(s, arg);
      if (verb === 'MLSD' && l.single) throw new Reply(501, 'MLSD needs a directory.');
      const can = l.target?.grant.can ?? { read: true, write: false, delete: false };
      const now = Date.now();
      const format = verb === 'LIST' ? (e: Entry) => listLine(e, now) : verb === 'NLST' ? (e: Entry) => (l.single ? l.path : e.name) : (e: Entry) => mlsxLine(e, can);
      const body = Readable.from(lines(l.items, format));
      const bytes = await sendData(s, body, 'Here comes the directory listing.', false);
      return { code: 226, text: 'Directory send OK.', path: l.path, bytes };
    },
    false,
  );
}

export const mlst = guarded(
  'MLST',
  async (s, arg) => {
    const virtual = joinVirtual(s.cwd, arg);
    if (locate(virtual, s.rule.mounts).kind === 'root') {
      s.replyLines(250, 'Listing /', [mlsxLine(virtualDir('/'), { read: true, write: false, delete: false }, 'cdir')], 'End.');
      return;
    }
    const t = await target(s, arg, 'read');
    const st = await statOf(t);
    if (!st) throw new Reply(550, 'No such file or directory.');
    s.replyLines(250, `Listing ${t.virtual}`, [mlsxLine(entryOf(t.virtual, st), t.grant.can)], 'End.');
  },
  false,
);

export async function statCommand(s: FtpSession, arg: string): Promise<void> {
  if (!arg || !s.who) {
    const lines = [
      `Connected to ${s.client}`,
      s.who ? `Logged in as ${s.userName}` : 'Not logged in',
      'TYPE: BINARY',
      s.secure ? `Control connection is encrypted; data ${s.protectData ? 'encrypted' : 'in clear'}` : 'Control connection is in clear',
      s.transfer ? 'A transfer is in progress' : 'No transfer in progress',
    ];
    return s.replyLines(211, 'FTP server status:', lines, 'End of status.');
  }
  if (s.transfer) return s.reply(213, 'A transfer is in progress.');
  try {
    const l = await listingOf(s, arg);
    const out: string[] = [];
    const now = Date.now();
    for await (const e of l.items) {
      out.push(listLine(e, now));
      if (out.length >= 10_000) break;
    }
    s.replyLines(213, 'Status follows:', out, 'End of status.');
  } catch (caught) {
    const err = caught instanceof MsgError ? fsReply(caught) : caught;
    if (err instanceof Reply) return s.reply(err.code, err.text);
    throw err;
  }
}
