/**
 * Logging in (USER, PASS: the storages' users, or anonymous where the rule allows it) and
 * securing the session (AUTH TLS, PBSZ, PROT: RFC 2228, 4217).
 */
import type { FtpSession } from './ftp.server.js';

export async function user(s: FtpSession, arg: string): Promise<void> {
  if (s.who) return s.reply(530, 'Cannot change to another user.');
  if (s.rule.requireTls && !s.secure) {
    s.server.counters.denied++;
    return s.reply(530, 'Sessions must use encryption (AUTH TLS) before login.');
  }
  if (!arg) return s.reply(501, 'Syntax error in parameters or arguments.');
  s.pendingUser = arg.slice(0, 256);
  s.reply(331, 'Please specify the password.');
}

export async function pass(s: FtpSession, arg: string): Promise<void> {
  if (s.who) return s.reply(230, 'Already logged in.');
  const account = s.pendingUser;
  s.pendingUser = null;
  if (account === null) return s.reply(503, 'Login with USER first.');
  const { storages, note } = s.server.deps;
  const anonymousName = /^(anonymous|ftp)$/i.test(account);
  const who = anonymousName
    ? s.rule.anonymous
      ? storages.anonymous()
      : null
    : await storages.login({ account, password: arg, ip: s.client, service: 'ftpserver' });
  if (!who) {
    s.server.counters.denied++;
    note({ key: 'ftpLoginFailed', vars: { client: s.client, account: account.slice(0, 64) } });
    // Slows down guessing on this connection; the lock-out (shared with the console) does the rest.
    await new Promise((r) => setTimeout(r, 500));
    return s.reply(530, 'Login incorrect.');
  }
  const max = s.rule.maxPerUser;
  if (s.server.sessionsOf(who.account) >= max) {
    s.server.counters.denied++;
    note({ key: 'ftpTooManyForUser', vars: { client: s.client, user: who.kind === 'anonymous' ? '(anonymous)' : who.account, max } });
    s.reply(421, 'Too many connections for this user.');
    s.sock.end();
    return;
  }
  s.who = who;
  note({ key: 'ftpLoggedIn', vars: { client: s.client, user: s.userName } });
  s.reply(230, 'Login successful.');
}

export async function auth(s: FtpSession, arg: string): Promise<void> {
  const kind = arg.trim().toUpperCase();
  if (kind !== 'TLS' && kind !== 'SSL' && kind !== 'TLS-C') return s.reply(504, 'Unknown AUTH type.');
  if (s.rule.tls === 'off' || !s.server.tls) return s.reply(534, 'TLS is not available on this server.');
  if (s.secure) return s.reply(503, 'Already using TLS.');
  await s.upgrade();
}

export function pbsz(s: FtpSession): void {
  if (!s.secure) return s.reply(503, 'PBSZ needs a secure control connection.');
  s.pbsz = true;
  s.reply(200, 'PBSZ=0');
}

export function prot(s: FtpSession, arg: string): void {
  if (!s.secure) return s.reply(503, 'PROT needs a secure control connection.');
  const level = arg.trim().toUpperCase();
  if (level === 'P') {
    s.protectData = true;
    return s.reply(200, 'PROT now Private.');
  }
  if (level === 'C') {
    s.protectData = false;
    return s.reply(200, 'PROT now Clear.');
  }
  s.reply(level === 'S' || level === 'E' ? 536 : 504, 'PROT level not supported.');
}
