/**
 * The login portal (module `portal`, the `portal` service) as web rules see it, in whichever thread
 * serves them. On the main thread this is the service itself; a serving thread asks the coordinator
 * (web.threads.ts) and keeps each answer until the pass says (at most 30 s), a refused token for a
 * few seconds; the coordinator tells every thread to forget its answers whenever a session ends or
 * a user changes, so a revoked session is refused at once everywhere.
 */
import { msgOf } from '../../lib/msgerror.js';
import type { PortalCookie, PortalPass, PortalService, PortalSignIn, PortalSignInRequest, PortalSsoFinish, PortalSsoStart } from '../../core/services/portal.js';

/** A serving thread's question to the coordinator. */
export type PortalAsk =
  | { op: 'pass'; token: string }
  | { op: 'signIn'; r: PortalSignInRequest }
  | { op: 'signOut'; token: string }
  | { op: 'sso' }
  | { op: 'ssoStart'; r: PortalSsoStart }
  | { op: 'ssoFinish'; r: PortalSsoFinish };

type SsoInfo = { enable: boolean; label: string };
type SsoFinished = { result: PortalSignIn & { rd?: string }; cookie: PortalCookie };

export interface SignedIn {
  result: PortalSignIn;
  cookie: PortalCookie;
}

const REFUSED_MS = 5_000;
const KEPT_MAX = 10_000;

let service: PortalService | null = null;
let ask: ((a: PortalAsk) => Promise<unknown>) | null = null;
/** A serving thread's answers by token: the pass (or null) and until when it stands. */
const kept = new Map<string, { pass: PortalPass | null; until: number }>();
const NO_COOKIE: PortalCookie = { domain: '', maxAgeSeconds: 0 };
const NO_SSO: SsoInfo = { enable: false, label: '' };
/** A serving thread's copy of the button's state (settings change seldom; a minute late is fine). */
let ssoKept: { info: SsoInfo; until: number } | null = null;

export const webPortal = {
  /** Main thread: the portal module's service. */
  use(s: PortalService | null): void {
    service = s;
  },
  /** Serving thread: how to ask the coordinator. */
  follow(to: (a: PortalAsk) => Promise<unknown>): void {
    ask = to;
  },
  /** Serving thread: forget every answer (a session ended, a user changed). */
  forget(): void {
    kept.clear();
  },
  /** The pass of a cookie's token: at once when known here, else a promise. */
  pass(token: string): PortalPass | null | Promise<PortalPass | null> {
    if (service) return service.pass(token);
    const now = Date.now();
    const k = kept.get(token);
    if (k && k.until > now) return k.pass;
    if (!ask) return null;
    return (ask({ op: 'pass', token }) as Promise<PortalPass | null>).then(
      (pass) => {
        if (kept.size >= KEPT_MAX) kept.clear();
        kept.set(token, { pass, until: pass ? pass.until : Date.now() + REFUSED_MS });
        return pass;
      },
      () => null,
    );
  },
  async signIn(r: PortalSignInRequest): Promise<SignedIn> {
    if (service) return { result: await service.signIn(r), cookie: service.cookie() };
    if (!ask) return { result: { ok: false, reason: 'wrong' }, cookie: NO_COOKIE };
    return (await ask({ op: 'signIn', r })) as SignedIn;
  },
  /** Ends the token's session; answers the cookie settings (to clear it with the same domain). */
  async signOut(token: string): Promise<PortalCookie> {
    if (service) {
      service.signOut(token);
      return service.cookie();
    }
    kept.delete(token);
    return ask ? ((await ask({ op: 'signOut', token })) as PortalCookie) : NO_COOKIE;
  },
  /** Single sign-on on the sign-in page: off, or its button's label. */
  async sso(): Promise<SsoInfo> {
    if (service) return service.sso();
    if (ssoKept && ssoKept.until > Date.now()) return ssoKept.info;
    const info = ask ? ((await ask({ op: 'sso' })) as SsoInfo) : NO_SSO;
    ssoKept = { info, until: Date.now() + 60_000 };
    return info;
  },
  /** The provider's sign-in URL; throws when single sign-on cannot start (its message). */
  async ssoStart(r: PortalSsoStart): Promise<string> {
    if (service) return service.ssoStart(r);
    const answer = (await ask?.({ op: 'ssoStart', r })) as { url?: string; error?: unknown } | undefined;
    if (!answer?.url) throw Object.assign(new Error('single sign-on'), { part: answer?.error ?? { key: 'oidcOff' } });
    return answer.url;
  },
  async ssoFinish(r: PortalSsoFinish): Promise<SsoFinished> {
    if (service) return { result: await service.ssoFinish(r), cookie: service.cookie() };
    return ask ? ((await ask({ op: 'ssoFinish', r })) as SsoFinished) : { result: { ok: false, reason: 'wrong' }, cookie: NO_COOKIE };
  },
  /** Main thread: answers a serving thread's question. */
  async answer(a: PortalAsk): Promise<unknown> {
    switch (a.op) {
      case 'pass':
        return service ? service.pass(a.token) : null;
      case 'signIn':
        return webPortal.signIn(a.r);
      case 'signOut':
        return webPortal.signOut(a.token);
      case 'sso':
        return service ? service.sso() : NO_SSO;
      case 'ssoStart':
        // An error crosses to the thread as its message.
        return webPortal.ssoStart(a.r).then(
          (url) => ({ url }),
          (err: unknown) => ({ error: msgOf(err) }),
        );
      case 'ssoFinish':
        return webPortal.ssoFinish(a.r);
    }
  },
  /** Main thread: calls `listener` whenever answers must be asked again; returns the unsubscribe. */
  subscribe(listener: () => void): () => void {
    return service ? service.onChange(listener) : () => undefined;
  },
};
