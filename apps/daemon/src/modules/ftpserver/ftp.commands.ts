/**
 * The FTP commands (RFC 959, 2228, 2389, 2428, 3659, 4217), by name. Every path goes through
 * `target` (ftp.reply.ts), that is through storages.resolve with the operation it needs. The
 * commands are in ftp.login.ts, ftp.dirs.ts, ftp.listing.ts, ftp.files.ts, and ftp.transfer.ts
 * (data connections).
 */
import { isIPv4, isIPv6 } from '@lucky/contracts/runtime';
import { parseEprt, parsePort } from './ftp.data.js';
import { cwd, dele, mdtm, mkd, rmd, rnfr, rnto, size } from './ftp.dirs.js';
import { retr, store } from './ftp.files.js';
import { listCommand, mlst, statCommand } from './ftp.listing.js';
import { auth, pass, pbsz, prot, user } from './ftp.login.js';
import { quote, type Handler } from './ftp.reply.js';
import { active, pasv } from './ftp.transfer.js';

/** Answered before login. */
export const PUBLIC_COMMANDS = new Set(['USER', 'PASS', 'AUTH', 'PBSZ', 'PROT', 'FEAT', 'SYST', 'QUIT', 'NOOP', 'OPTS', 'HELP']);
/** Answered at once while a transfer runs; every other command waits for the transfer to end. */
export const TRANSFER_SAFE = new Set(['ABOR', 'STAT', 'NOOP', 'QUIT']);

const FEATURES = ['UTF8', 'EPSV', 'EPRT', 'MLST type*;size*;modify*;perm*;', 'SIZE', 'MDTM', 'REST STREAM', 'TVFS', 'AUTH TLS', 'PBSZ', 'PROT'];

export const COMMANDS: Record<string, Handler> = {
  USER: user,
  PASS: pass,
  AUTH: auth,
  PBSZ: pbsz,
  PROT: prot,
  QUIT: (s) => s.quit(),
  NOOP: (s) => s.reply(200, 'NOOP ok.'),
  SYST: (s) => s.reply(215, 'UNIX Type: L8'),
  FEAT: (s) => s.replyLines(211, 'Features:', FEATURES, 'End'),
  OPTS: (s, arg) => {
    const [name, value] = arg.trim().split(/\s+/);
    const n = (name ?? '').toUpperCase();
    if (n === 'UTF8' || n === 'UTF-8') return s.reply(200, (value ?? 'ON').toUpperCase() === 'OFF' ? 'UTF8 is always on.' : 'Always in UTF8 mode.');
    if (n === 'MLST') return s.reply(200, 'MLST OPTS type;size;modify;perm;');
    s.reply(501, 'Option not understood.');
  },
  HELP: (s) =>
    s.replyLines(214, 'The following commands are recognized.', [Object.keys(COMMANDS).join(' ')], 'Help OK.'),
  PWD: (s) => s.reply(257, `${quote(s.cwd)} is the current directory`),
  XPWD: (s) => s.reply(257, `${quote(s.cwd)} is the current directory`),
  CWD: cwd,
  XCWD: cwd,
  CDUP: (s) => cwd(s, '..'),
  XCUP: (s) => cwd(s, '..'),
  TYPE: (s, arg) => {
    const t = arg.trim().toUpperCase().replace(/\s+/g, ' ');
    if (t === 'I' || t === 'L 8') return s.reply(200, 'Switching to Binary mode.');
    // ASCII is accepted and sent as is: clients of today ask for it for listings only.
    if (t === 'A' || t === 'A N') return s.reply(200, 'Switching to ASCII mode.');
    s.reply(504, 'Unrecognised TYPE command.');
  },
  MODE: (s, arg) => (arg.trim().toUpperCase() === 'S' ? s.reply(200, 'Mode set to S.') : s.reply(504, 'Bad MODE command.')),
  STRU: (s, arg) => (arg.trim().toUpperCase() === 'F' ? s.reply(200, 'Structure set to F.') : s.reply(504, 'Bad STRU command.')),
  ALLO: (s) => s.reply(202, 'ALLO command ignored.'),
  REST: (s, arg) => {
    const n = Number(arg.trim());
    if (!/^\d+$/.test(arg.trim()) || !Number.isSafeInteger(n)) return s.reply(501, 'REST needs a byte offset.');
    s.rest = n;
    s.reply(350, `Restart position accepted (${n}).`);
  },
  PASV: (s, arg) => pasv(s, false)(s, arg),
  EPSV: (s, arg) => pasv(s, true)(s, arg),
  PORT: (s, arg) => {
    const p = parsePort(arg);
    if (!p) return s.reply(501, 'Illegal PORT command.');
    active(s, p.host, p.port);
  },
  EPRT: (s, arg) => {
    const p = parseEprt(arg.trim());
    if (!p || (p.family === 1 ? !isIPv4(p.host) : !isIPv6(p.host))) return s.reply(p ? 501 : 522, 'Bad EPRT command; use (1,2).');
    active(s, p.host, p.port);
  },
  LIST: listCommand('LIST'),
  NLST: listCommand('NLST'),
  MLSD: listCommand('MLSD'),
  MLST: mlst,
  STAT: statCommand,
  RETR: retr,
  STOR: store('STOR'),
  APPE: store('APPE'),
  DELE: dele,
  RNFR: rnfr,
  RNTO: rnto,
  MKD: mkd,
  XMKD: mkd,
  RMD: rmd,
  XRMD: rmd,
  SIZE: size,
  MDTM: mdtm,
  ABOR: (s) => {
    if (!s.transfer) {
      s.data?.close();
      s.data = null;
      return s.reply(225, 'No transfer to abort.');
    }
    // The transfer's own reply (426) comes first, then this one (sent by the transfer's command).
    s.abortPending = true;
    s.transfer.abort();
  },
};
