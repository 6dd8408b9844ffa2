/**
 * The login portal (module `portal`, the `portal` service) as web rules see it, in whichever thread
 * serves them. On the main thread this is the service itself; a serving thread asks the coordinator
 * (web.threads.ts) and keeps each answer until the pass says (at most 30 s), a refused token for a
 * few seconds; the coordinator tells every thread to forget its answers whenever a session ends or
 * a user changes, so a revoked session is refused at once everywhere.
 */
import type { PortalCookie, PortalPass, PortalService, PortalSignIn, PortalSignInRequest } from '../../core/services/portal.js';

/** A serving thread's question to the coordinator. */
export type PortalAsk = { op: 'pass'; token: string } | { op: 'signIn'; r: PortalSignInRequest } | { op: 'signOut'; token: string };

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
        kept.set(token, { pass, until: pass ? Math.min(pass.until, Date.now() + 30_000) : Date.now() + REFUSED_MS });
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
  /** Main thread: answers a serving thread's question. */
  async answer(a: PortalAsk): Promise<unknown> {
    if (!service) return a.op === 'pass' ? null : a.op === 'signIn' ? { result: { ok: false, reason: 'wrong' }, cookie: NO_COOKIE } : NO_COOKIE;
    if (a.op === 'pass') return service.pass(a.token);
    if (a.op === 'signIn') return webPortal.signIn(a.r);
    return webPortal.signOut(a.token);
  },
  /** Main thread: calls `listener` whenever answers must be asked again; returns the unsubscribe. */
  subscribe(listener: () => void): () => void {
    return service ? service.onChange(listener) : () => undefined;
  },
};
