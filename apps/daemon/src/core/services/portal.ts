/**
 * `portal`: the login portal's users and sessions (module `portal`) for the web rules that require
 * Lucky login. The web module serves the login page and reads the cookie; who may sign in, their
 * passwords, second factors and sessions stay in the portal module, which counts every failure in
 * the daemon's one defender.
 */
import type { Msg } from '@lucky/contracts';

export interface PortalPass {
  /** What the console lists the session as (never the token). */
  sessionId: string;
  user: string;
  /** The web rules (keys) the user may open; null = every protected rule. */
  rules: string[] | null;
  /** Unix ms until which this answer may be reused without asking again (a thread's copy). */
  until: number;
}

export interface PortalCookie {
  /** The parent domain the cookie is scoped to; '' = the request's host only. */
  domain: string;
  /** The session's longest life, for the cookie's Max-Age. */
  maxAgeSeconds: number;
}

export type PortalSignIn =
  | { ok: true; token: string; user: string }
  /**
   * `wrong`: name, password or code; `locked`/`busy`: the defender; `notAllowed`: right login, not for
   * this rule; `sso`: the provider's answer was refused (`msg` says why).
   */
  | { ok: false; reason: 'wrong' | 'locked' | 'busy' | 'notAllowed' | 'sso'; seconds?: number; user?: string; msg?: Msg };

export interface PortalSsoStart {
  /** This site's `/.lucky/sso/callback`, as the browser reaches it. */
  redirectUri: string;
  /** Where to go once signed in. */
  rd: string;
  rule: string;
}

export interface PortalSsoFinish {
  /** The callback URL the browser came back to, with its query. */
  callback: string;
  address: string;
  agent: string;
}

export interface PortalSignInRequest {
  user: string;
  password: string;
  /** The TOTP code ('' when the form had none). */
  code: string;
  address: string;
  agent: string;
  /** The web rule the form was served by: a user not allowed there gets no session. */
  rule: string;
}

export interface PortalService {
  /** The live session a cookie's token names (its idle time renewed), else null. */
  pass(token: string): PortalPass | null;
  signIn(r: PortalSignInRequest): Promise<PortalSignIn>;
  /** Single sign-on on the sign-in page: off, or what its button says. */
  sso(): { enable: boolean; label: string };
  /** The provider's sign-in URL for this site's page. */
  ssoStart(r: PortalSsoStart): Promise<string>;
  /** A session for the person the provider vouches for, if their groups allow the rule; `rd` from the start. */
  ssoFinish(r: PortalSsoFinish): Promise<PortalSignIn & { rd?: string }>;
  /** Ends the session of this token (nothing when there is none). */
  signOut(token: string): void;
  cookie(): PortalCookie;
  /** A session ended or a user changed: reused answers must be asked again. Returns the unsubscribe. */
  onChange(listener: () => void): () => void;
}
