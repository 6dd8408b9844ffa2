/**
 * Directory listings as FTP clients read them: LIST in the `ls -l` form every client parses, NLST
 * as names, MLSD/MLST as RFC 3659 facts. Names are UTF-8; a name with CR or LF cannot be sent on
 * one line and is left out.
 */
import type { Stats } from 'node:fs';
import type { StoragePermission } from '@lucky/contracts';

export interface Entry {
  name: string;
  dir: boolean;
  size: number;
  mtime: Date;
  mode: number;
}

/** From node's Stats, or a remote's stat made to look like it. */
export function entryOf(name: string, s: Pick<Stats, 'size' | 'mtime' | 'mode' | 'isDirectory'>): Entry {
  return { name, dir: s.isDirectory(), size: s.isDirectory() ? 0 : s.size, mtime: s.mtime, mode: s.mode };
}

/** A folder that is not on disk (the virtual root's mounts). */
export function virtualDir(name: string): Entry {
  return { name, dir: true, size: 0, mtime: new Date(0), mode: 0o755 };
}

export const sendable = (name: string) => !/[\r\n]/.test(name);

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const HALF_YEAR = 182 * 24 * 3600 * 1000;

function rwx(mode: number): string {
  let s = '';
  for (const shift of [6, 3, 0]) {
    const b = (mode >> shift) & 7;
    s += (b & 4 ? 'r' : '-') + (b & 2 ? 'w' : '-') + (b & 1 ? 'x' : '-');
  }
  return s;
}

/** One `ls -l` line: recent files show the time, older ones the year (as ls does). */
export function listLine(e: Entry, now = Date.now()): string {
  const d = e.mtime;
  const day = String(d.getUTCDate()).padStart(2, ' ');
  const when =
    Math.abs(now - d.getTime()) < HALF_YEAR
      ? `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`
      : ` ${d.getUTCFullYear()}`;
  return `${e.dir ? 'd' : '-'}${rwx(e.mode)} 1 ftp ftp ${String(e.size).padStart(12, ' ')} ${MONTHS[d.getUTCMonth()]} ${day} ${when} ${e.name}`;
}

/** YYYYMMDDHHMMSS in UTC: MDTM and the modify fact. */
export function ftpTime(d: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(d.getUTCFullYear(), 4)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
}

/**
 * RFC 3659 facts. `perm` says what this user may do: r read, w write (store), a append, d delete,
 * f rename, c create files, m make folders, e enter, l list.
 */
export function mlsxLine(e: Entry, can: StoragePermission, kind?: 'cdir' | 'pdir'): string {
  const perm = e.dir
    ? `${can.read ? 'el' : ''}${can.write ? 'cmf' : ''}${can.delete ? 'd' : ''}`
    : `${can.read ? 'r' : ''}${can.write ? 'awf' : ''}${can.delete ? 'd' : ''}`;
  const type = kind ?? (e.dir ? 'dir' : 'file');
  const size = e.dir ? '' : `size=${e.size};`;
  return `type=${type};${size}modify=${ftpTime(e.mtime)};perm=${perm}; ${e.name}`;
}
