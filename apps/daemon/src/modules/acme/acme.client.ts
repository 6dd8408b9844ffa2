/**
 * An ACME client (RFC 8555) on the daemon's HTTP client: the directory, nonces (each answer's
 * Replay-Nonce kept for the next request; a `badNonce` refusal retried with the fresh nonce it
 * carries), the account (found or registered, with External Account Binding when given), orders,
 * authorizations, challenges, polling as Retry-After says, finalize and the certificate chain.
 * Every step is a line for the rule's log; a CA's error is a MsgError quoting its problem document.
 */
import type { Msg } from '@lucky/contracts';
import { retryAfterMs, type HttpFn, type HttpResponse } from '../../lib/http/request.js';
import { MsgError } from '../../lib/msgerror.js';
import { b64u, eabJws, signJws, type AccountKey } from './acme.jws.js';

export interface AcmeDirectory {
  newNonce: string;
  newAccount: string;
  newOrder: string;
  /** RFC 9773: where renewal information is asked for. */
  renewalInfo?: string;
  meta?: { externalAccountRequired?: boolean; termsOfService?: string };
}

export interface AcmeProblemDoc {
  type?: string;
  detail?: string;
  status?: number;
  subproblems?: Array<{ type?: string; detail?: string; identifier?: { value: string } }>;
}

export interface AcmeIdentifier {
  type: 'dns';
  value: string;
}

export interface AcmeChallenge {
  type: string;
  url: string;
  token: string;
  status: 'pending' | 'processing' | 'valid' | 'invalid';
  error?: AcmeProblemDoc;
}

export interface AcmeAuthorization {
  identifier: AcmeIdentifier;
  status: 'pending' | 'valid' | 'invalid' | 'deactivated' | 'expired' | 'revoked';
  wildcard?: boolean;
  challenges: AcmeChallenge[];
}

export interface AcmeOrder {
  status: 'pending' | 'ready' | 'processing' | 'valid' | 'invalid';
  identifiers: AcmeIdentifier[];
  authorizations: string[];
  finalize: string;
  certificate?: string;
  error?: AcmeProblemDoc;
}

/** A CA's refusal: its problem type (urn:ietf:params:acme:error:…) kept for the caller. */
export class AcmeProblem extends MsgError {
  constructor(
    readonly status: number,
    readonly problem: AcmeProblemDoc,
  ) {
    super({ key: 'acmeCaError', vars: { status, type: shortType(problem.type), detail: describeProblem(problem) } });
  }
}

const shortType = (t?: string) => (t ?? '').replace(/^urn:ietf:params:acme:error:/, '');

export function describeProblem(p: AcmeProblemDoc): string {
  const subs = (p.subproblems ?? []).map((s) => `${s.identifier?.value ?? ''}: ${s.detail ?? shortType(s.type)}`);
  return [p.detail ?? '', ...subs].filter(Boolean).join('; ').slice(0, 500);
}

export interface AcmeClientOptions {
  /** badNonce refusals retried per request (default 20: a CA may refuse good nonces at random, pebble a set share of them). */
  nonceRetries?: number;
  /** Longest wait for an authorization or the order (default 120 s). */
  pollTimeoutMs?: number;
  /**
   * Longest wait between polls when the CA sends no Retry-After (default 2 s); the first waits are
   * shorter (50 ms, doubling), since a CA often decides within moments. Retry-After is capped at 30 s.
   */
  pollMs?: number;
  note?(line: Msg): void;
}

interface Answer<T> {
  status: number;
  headers: Record<string, string>;
  body: T;
  text: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class AcmeClient {
  private dir: AcmeDirectory | null = null;
  private nonces: string[] = [];
  /** The account URL once known. */
  kid: string | null = null;
  /** badNonce refusals seen (tests, figures). */
  badNonces = 0;

  constructor(
    private readonly http: HttpFn,
    private readonly directoryUrl: string,
    private readonly acct: AccountKey,
    private readonly o: AcmeClientOptions = {},
  ) {}

  private note(line: Msg): void {
    this.o.note?.(line);
  }

  async directory(): Promise<AcmeDirectory> {
    if (this.dir) return this.dir;
    this.note({ key: 'acmeDirectory', vars: { url: this.directoryUrl } });
    const res = await this.http({ url: this.directoryUrl, headers: { accept: 'application/json' } });
    const body = parse<AcmeDirectory & AcmeProblemDoc>(res);
    if (res.status !== 200) throw new AcmeProblem(res.status, body);
    if (!body.newNonce || !body.newAccount || !body.newOrder) throw new MsgError({ key: 'httpNotJson', vars: { status: res.status, detail: res.text.slice(0, 200) } });
    this.dir = body;
    return body;
  }

  private keep(res: HttpResponse): void {
    const n = res.headers['replay-nonce'];
    if (n) this.nonces.push(n);
  }

  private async nonce(): Promise<string> {
    const kept = this.nonces.pop();
    if (kept) return kept;
    const dir = await this.directory();
    const res = await this.http({ method: 'HEAD', url: dir.newNonce });
    const n = res.headers['replay-nonce'];
    if (!n) throw new AcmeProblem(res.status, { detail: 'no Replay-Nonce from newNonce' });
    return n;
  }

  /** A signed POST (payload null: POST-as-GET), retried on badNonce. */
  async post<T>(url: string, payload: unknown | null, o: { jwk?: boolean; accept?: string } = {}): Promise<Answer<T>> {
    const retries = this.o.nonceRetries ?? 20;
    for (let attempt = 0; ; attempt++) {
      const jws = signJws(this.acct, { url, nonce: await this.nonce(), ...(o.jwk || !this.kid ? {} : { kid: this.kid }) }, payload);
      const res = await this.http({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/jose+json', ...(o.accept ? { accept: o.accept } : {}) },
        body: JSON.stringify(jws),
      });
      this.keep(res);
      if (res.status >= 200 && res.status < 300) {
        const json = (res.headers['content-type'] ?? '').includes('json');
        return { status: res.status, headers: res.headers, body: (json ? parse<T>(res) : (undefined as T)), text: res.text };
      }
      const problem = parse<AcmeProblemDoc>(res, true);
      if (problem.type === 'urn:ietf:params:acme:error:badNonce' && attempt < retries) {
        this.badNonces++;
        this.note({ key: 'acmeBadNonce', vars: { n: attempt + 1 } });
        continue;
      }
      throw new AcmeProblem(res.status, problem);
    }
  }

  /** Finds or registers the account of the key; returns whether it is new. */
  async account(o: { email?: string; eab?: { kid: string; hmac: string } }): Promise<{ url: string; created: boolean }> {
    const dir = await this.directory();
    if (dir.meta?.externalAccountRequired && !o.eab) throw new MsgError({ key: 'acmeEabRequired' });
    const payload: Record<string, unknown> = { termsOfServiceAgreed: true };
    if (o.email) payload.contact = [`mailto:${o.email}`];
    if (o.eab) payload.externalAccountBinding = eabJws(this.acct, o.eab.kid, o.eab.hmac, dir.newAccount);
    const res = await this.post<{ status: string }>(dir.newAccount, payload, { jwk: true });
    const url = res.headers.location;
    if (!url) throw new AcmeProblem(res.status, { detail: 'no account URL (Location) in the answer' });
    this.kid = url;
    const created = res.status === 201;
    this.note({ key: created ? 'acmeAccountNew' : 'acmeAccountKnown', vars: { account: url } });
    return { url, created };
  }

  /** `replaces`: the certificate it renews (ARI), sent only to a CA with renewal information; one it says was already replaced is not sent again. */
  async newOrder(names: readonly string[], replaces?: string): Promise<{ url: string; order: AcmeOrder }> {
    const dir = await this.directory();
    const identifiers = names.map((value) => ({ type: 'dns', value }));
    const res = await this.post<AcmeOrder>(dir.newOrder, replaces && dir.renewalInfo ? { identifiers, replaces } : { identifiers }).catch((err: unknown) => {
      if (replaces && err instanceof AcmeProblem && /alreadyReplaced|malformed/.test(err.problem.type ?? '')) return this.post<AcmeOrder>(dir.newOrder, { identifiers });
      throw err;
    });
    const url = res.headers.location;
    if (!url) throw new AcmeProblem(res.status, { detail: 'no order URL (Location) in the answer' });
    this.note({ key: 'acmeOrderNew', vars: { names: names.join(', ') } });
    return { url, order: res.body };
  }

  async get<T>(url: string): Promise<Answer<T>> {
    return this.post<T>(url, null);
  }

  /** Tells the CA the challenge is ready to be checked. */
  async respond(challengeUrl: string): Promise<AcmeChallenge> {
    return (await this.post<AcmeChallenge>(challengeUrl, {})).body;
  }

  /** Polls `url` until `done` says so (true) or fails (a thrown error), as Retry-After asks. */
  async poll<T>(url: string, what: string, done: (body: T) => boolean): Promise<T> {
    const deadline = Date.now() + (this.o.pollTimeoutMs ?? 120_000);
    for (let attempt = 0; ; attempt++) {
      const res = await this.get<T>(url);
      if (done(res.body)) return res.body;
      if (Date.now() > deadline) throw new MsgError({ key: 'acmeTimeout', vars: { what } });
      await sleep(retryAfter(res.headers['retry-after'], Math.min(50 * 2 ** attempt, this.o.pollMs ?? 2000)));
    }
  }

  async finalize(order: AcmeOrder, csrDer: Buffer): Promise<AcmeOrder> {
    return (await this.post<AcmeOrder>(order.finalize, { csr: b64u(csrDer) })).body;
  }

  /** The certificate chain, PEM. */
  async download(certUrl: string): Promise<string> {
    return (await this.post<undefined>(certUrl, null, { accept: 'application/pem-certificate-chain' })).text;
  }
}

/** Milliseconds to wait: Retry-After as seconds or an HTTP date, capped at 30 s; `fallback` without one. */
export function retryAfter(value: string | undefined, fallback: number): number {
  const ms = retryAfterMs(value);
  return ms === null ? fallback : Math.min(Math.max(ms, 100), 30_000);
}

function parse<T>(res: HttpResponse, problem = false): T {
  try {
    return JSON.parse(res.text) as T;
  } catch {
    if (problem) return { status: res.status, detail: res.text.slice(0, 200) } as T;
    throw new MsgError({ key: 'httpNotJson', vars: { status: res.status, detail: res.text.slice(0, 200) } });
  }
}
