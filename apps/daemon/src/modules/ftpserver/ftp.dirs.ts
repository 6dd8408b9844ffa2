/**
 * Folders and names: CWD, MKD, RMD, DELE, RNFR/RNTO, and SIZE and MDTM of a file. What is on disk or
 * on a remote is ftp.storage.ts's to answer.
 */
import { MsgError } from '../../lib/msgerror.js';
import { ftpTime } from './ftp.list.js';
import { joinVirtual, locate, parentOf, type Target } from './ftp.paths.js';
import { fsReply, guarded, quote, Reply, target } from './ftp.reply.js';
import type { FtpSession } from './ftp.server.js';
import { makeFolder, removeFile, removeFolder, renameTo, statOf, within } from './ftp.storage.js';

async function isDir(t: Target): Promise<boolean> {
  return (await statOf(t))?.isDirectory() === true;
}

export async function cwd(s: FtpSession, arg: string): Promise<void> {
  // `..` as the whole argument moves the virtual directory up; nowhere else is `..` taken.
  if (arg === '..' || arg === '../') {
    s.cwd = parentOf(s.cwd);
    return s.reply(250, 'Directory successfully changed.');
  }
  const virtual = joinVirtual(s.cwd, arg);
  const place = locate(virtual, s.rule.mounts);
  if (place.kind === 'root') {
    s.cwd = '/';
    return s.reply(250, 'Directory successfully changed.');
  }
  try {
    const t = await target(s, arg, 'read');
    if (!(await isDir(t))) return s.reply(550, 'Failed to change directory.');
    s.cwd = t.virtual;
    s.reply(250, 'Directory successfully changed.');
  } catch (caught) {
    const err = caught instanceof MsgError ? fsReply(caught) : caught;
    if (err instanceof Reply) return s.reply(err.code, err.text);
    throw err;
  }
}

export const mkd = guarded('MKD', async (s, arg) => {
  const t = await target(s, arg, 'write');
  if (t.rp.path === '/' || t.rp.exists) throw new Reply(550, 'Create directory operation failed: it exists.');
  await makeFolder(t);
  return { code: 257, text: `${quote(t.virtual)} created.`, path: t.virtual };
});

export const rmd = guarded('RMD', async (s, arg) => {
  const t = await target(s, arg, 'delete');
  if (t.rp.path === '/') throw new Reply(550, 'Permission denied.');
  const st = await statOf(t, { link: true });
  if (!st?.isDirectory()) throw new Reply(550, 'Remove directory operation failed.');
  await removeFolder(t);
  if (s.cwd === t.virtual || s.cwd.startsWith(`${t.virtual}/`)) s.cwd = parentOf(t.virtual);
  return { code: 250, text: 'Remove directory operation successful.', path: t.virtual };
});

export const dele = guarded('DELE', async (s, arg) => {
  const t = await target(s, arg, 'delete');
  const st = await statOf(t, { link: true });
  if (!st) throw new Reply(550, 'No such file or directory.');
  if (st.isDirectory()) throw new Reply(550, 'Delete operation failed: it is a directory.');
  await removeFile(t);
  return { code: 250, text: 'Delete operation successful.', path: t.virtual };
});

export async function rnfr(s: FtpSession, arg: string): Promise<void> {
  s.renameFrom = null;
  try {
    const t = await target(s, arg, 'write');
    if (t.rp.path === '/' || !t.rp.exists) throw new Reply(550, 'RNFR command failed.');
    s.renameFrom = t;
    s.reply(350, 'Ready for RNTO.');
  } catch (caught) {
    const err = caught instanceof MsgError ? fsReply(caught) : caught;
    if (!(err instanceof Reply)) throw err;
    s.reply(err.code, err.text);
    s.access('RNFR', joinVirtual(s.cwd, arg), err.code);
  }
}

export const rnto = guarded('RNTO', async (s, arg) => {
  const from = s.renameFrom;
  s.renameFrom = null;
  if (!from) throw new Reply(503, 'RNFR required first.');
  const to = await target(s, arg, 'write');
  if (to.rp.path === '/') throw new Reply(553, 'Rename failed.');
  if (to.grant.storage !== from.grant.storage) throw new Reply(553, 'Rename across storages is not possible.');
  // The source is checked again: a symlink swapped in since RNFR must not be followed now.
  const again = await target(s, from.virtual, 'write');
  if (!again.rp.exists) throw new Reply(550, 'RNFR source is gone.');
  const dst = await statOf(to, { link: true });
  if (dst?.isDirectory()) throw new Reply(553, 'Rename failed: the target is a directory.');
  const src = await statOf(again, { link: true });
  if (!src) throw new Reply(550, 'RNFR source is gone.');
  if (src.isDirectory() && within(to, again)) throw new Reply(553, 'Rename failed: a folder cannot move into itself.');
  await renameTo(again, to);
  return { code: 250, text: 'Rename successful.', path: `${from.virtual} → ${to.virtual}` };
});

export const size = guarded(
  'SIZE',
  async (s, arg) => {
    const t = await target(s, arg, 'read');
    const st = await statOf(t);
    if (!st?.isFile()) throw new Reply(550, 'Could not get file size.');
    return { code: 213, text: String(st.size), path: t.virtual };
  },
  false,
);

export const mdtm = guarded(
  'MDTM',
  async (s, arg) => {
    const t = await target(s, arg, 'read');
    const st = await statOf(t);
    if (!st?.isFile()) throw new Reply(550, 'Could not get file modification time.');
    return { code: 213, text: ftpTime(st.mtime), path: t.virtual };
  },
  false,
);
