/**
 * The `portal` service: sign-in against the portal users (scrypt, then the TOTP code when the user
 * has one), sessions, and the pass a web rule asks for on each request. Every failed sign-in counts
 * in the daemon's one defender; a locked address is refused before its password is hashed, and one
 * address has at most two checks running at once.
 */
import { createHash } from 'node:crypto';
import type { PortalSettings, PortalUser } from '@lucky/contracts';
import type { PortalService, PortalSignIn, PortalSignInRequest, PortalSsoFinish, PortalSsoStart } from '../../core/services/portal.js';
import type { OidcService } from '../../core/services/oidc.js';
import { errorMsg } from '../../core/envelope.js';
import type { StoredRule } from '../../core/rulestore.js';
import { checkPassword } from '../../core/password.js';
import { verifyTotp } from '../../core/totp.js';
import type { LoginGuard } from '../../core/loginguard.js';
import type { Say } from '../../core/logs.js';
import { sessionIdOf, SSO_STAMP, type Lifetimes, type PortalSessions } from './portal.sessions.js';

/** How long a serving thread may reuse a pass before asking again (revocations reach it at once anyway). */
const PASS_REUSE_MS = 30_000;

/** What a session is bound to: the user's password hash and second factor at its login. */
export function stampOf(u: PortalUser): string {
  return createHash('sha256').update(u.password).update('\0').update(u.totp).digest('base64url').slice(0, 16);
}

export function lifetimes(s: PortalSettings): Lifetimes {
  return { idleMs: s.idleMinutes * 60_000, absoluteMs: s.absoluteHours * 3_600_000 };
}

export interface PortalParts {
  users(): StoredRule<PortalUser>[];
  settings(): PortalSettings;
  sessions: PortalSessions;
  guard: LoginGuard;
  oidc: OidcService;
  say: Say;
  /** A successful sign-in (the user's view shows the last one). */
  signedIn(user: string): void;
}

export class Portal implements PortalService {
  private listeners = new Set<() => void>();
  /** Enabled users by lower-cased name, built again after a user changed (`usersChanged`). */
  private byName: Map<string, PortalUser> | null = null;

  constructor(private p: PortalParts) {}

  /** The enabled user of this name, found case-insensitively (names are unique that way). */
  private user(name: string): PortalUser | undefined {
    this.byName ??= new Map(this.p.users().filter((r) => r.data.enable).map((r) => [r.data.name.toLowerCase(), r.data]));
    return this.byName.get(name.toLowerCase());
  }

  /** A user was switched, saved or deleted: sessions are judged against the users of now. */
  usersChanged(): void {
    this.byName = null;
    this.changed();
  }

  pass(token: string) {
    const s = this.p.sessions.use(token, lifetimes(this.p.settings()));
    if (!s) return null;
    // The provider vouched for this person at sign-in, for the rules their groups allowed then.
    if (s.stamp === SSO_STAMP) return { sessionId: sessionIdOf(s.tokenHash), user: s.user, rules: s.rules, until: Date.now() + PASS_REUSE_MS };
    const u = this.user(s.user);
    // Switched off, deleted, or a new password or second factor since this login: signed out.
    if (!u || stampOf(u) !== s.stamp) {
      this.p.sessions.drop(s.tokenHash);
      return null;
    }
    return { sessionId: sessionIdOf(s.tokenHash), user: u.name, rules: u.rules.length ? u.rules : null, until: Date.now() + PASS_REUSE_MS };
  }

  async signIn(r: PortalSignInRequest): Promise<PortalSignIn> {
    const { guard } = this.p;
    const wait = guard.lockedFor(r.address);
    if (wait > 0) return { ok: false, reason: 'locked', seconds: wait };
    const release = guard.admit(r.address);
    if (!release) return { ok: false, reason: 'busy' };
    try {
      const u = this.user(r.user);
      const passwordOk = await checkPassword(r.password, u?.password);
      const codeOk = !u?.totp || verifyTotp(u.totp, r.code);
      if (!u || !passwordOk || !codeOk) {
        const seconds = guard.fail(r.address);
        this.p.say.warn({ key: 'portalLoginFailed', vars: { user: r.user.slice(0, 64), address: r.address } });
        return seconds > 0 ? { ok: false, reason: 'locked', seconds } : { ok: false, reason: 'wrong' };
      }
      guard.succeed(r.address);
      if (u.rules.length > 0 && !u.rules.includes(r.rule)) return { ok: false, reason: 'notAllowed', user: u.name };
      const token = this.p.sessions.create(u.name, stampOf(u), r.address, r.agent);
      this.p.signedIn(u.name);
      this.p.say.info({ key: 'portalLogin', vars: { user: u.name, address: r.address } });
      return { ok: true, token, user: u.name };
    } finally {
      release();
    }
  }

  sso() {
    return this.p.oidc.info();
  }

  ssoStart(r: PortalSsoStart): Promise<string> {
    return this.p.oidc.start(r.redirectUri, { for: 'portal', rd: r.rd, rule: r.rule });
  }

  async ssoFinish(r: PortalSsoFinish): Promise<PortalSignIn & { rd?: string }> {
    let done: Awaited<ReturnType<OidcService['finish']>>;
    try {
      done = await this.p.oidc.finish(new URL(r.callback));
      if (done.extra.for !== 'portal') throw new Error('not a portal sign-in');
    } catch (err) {
      return { ok: false, reason: 'sso', msg: errorMsg(err) };
    }
    const { identity, extra } = done;
    const rd = extra.rd ?? '/';
    const rules = this.p.oidc.portalRules(identity.groups);
    if (rules === false || (rules !== null && !rules.includes(extra.rule ?? ''))) {
      this.p.say.warn({ key: 'portalLoginFailed', vars: { user: identity.user, address: r.address } });
      return { ok: false, reason: 'notAllowed', user: identity.user, rd };
    }
    const token = this.p.sessions.create(identity.user, SSO_STAMP, r.address, r.agent, rules);
    this.p.say.info({ key: 'portalLogin', vars: { user: identity.user, address: r.address } });
    return { ok: true, token, user: identity.user, rd };
  }

  signOut(token: string): void {
    const s = this.p.sessions.use(token, lifetimes(this.p.settings()));
    if (s && this.p.sessions.drop(s.tokenHash)) this.changed();
  }

  cookie() {
    const s = this.p.settings();
    return { domain: s.cookieDomain, maxAgeSeconds: s.absoluteHours * 3600 };
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Sessions ended or users changed: every copy of a pass is dropped. */
  changed(): void {
    for (const l of this.listeners) l();
  }
}
