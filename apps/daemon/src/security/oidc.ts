/**
 * Single sign-on with an OpenID Connect provider, as a relying party: the authorization code flow
 * with PKCE (S256), state and nonce, through openid-client (a certified implementation), which does
 * discovery and checks the ID token (signature by the provider's JWKS, iss, aud, exp, nonce). What
 * the provider says is only trusted after those checks; groups come from the ID token, else from
 * the userinfo endpoint. Flows in progress live here for ten minutes, keyed by their state.
 */
import { randomBytes } from 'node:crypto';
import type { OidcSettings } from '@lucky/contracts';
import type { OidcService, SsoIdentity } from '../core/services/oidc.js';
import { MsgError } from '../lib/msgerror.js';

type Client = typeof import('openid-client');
type Configuration = import('openid-client').Configuration;

const FLOW_MS = 10 * 60_000;
const FLOWS_MAX = 1000;
const DISCOVERY_MS = 10 * 60_000;

interface Flow {
  verifier: string;
  nonce: string;
  redirectUri: string;
  extra: Record<string, string>;
  until: number;
}

let loaded: Promise<Client> | undefined;
/** Imported when single sign-on is first used: a daemon without it never loads the library. */
const lib = (): Promise<Client> => (loaded ??= import('openid-client'));

const detail = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 300);

export class Oidc implements OidcService {
  private flows = new Map<string, Flow>();
  private discovered: { key: string; at: number; config: Promise<Configuration> } | null = null;

  constructor(private settings: () => OidcSettings) {}

  info() {
    const s = this.settings();
    return { enable: s.enable && s.issuer !== '' && s.clientId !== '', label: s.label };
  }

  /** Reads the provider's configuration (kept ten minutes per issuer, client and secret). */
  async configuration(s = this.settings()): Promise<Configuration> {
    const key = JSON.stringify([s.issuer, s.clientId, s.clientSecret]);
    const now = Date.now();
    if (this.discovered?.key === key && now - this.discovered.at < DISCOVERY_MS) return this.discovered.config;
    const config = (async () => {
      const c = await lib();
      const insecure = new URL(s.issuer).protocol === 'http:';
      try {
        return await c.discovery(new URL(s.issuer), s.clientId, s.clientSecret || undefined, s.clientSecret ? c.ClientSecretBasic(s.clientSecret) : c.None(), {
          timeout: 10,
          // The ID token's signature is checked against the provider's JWKS even though it came
          // straight from the token endpoint (the library would trust TLS alone there), and an
          // issuer the operator runs on plain HTTP in their LAN is their choice.
          execute: insecure ? [c.enableNonRepudiationChecks, c.allowInsecureRequests] : [c.enableNonRepudiationChecks],
        });
      } catch (err) {
        throw new MsgError({ key: 'oidcDiscoveryFailed', vars: { issuer: s.issuer, detail: detail(err) } });
      }
    })();
    this.discovered = { key, at: now, config };
    config.catch(() => {
      if (this.discovered?.config === config) this.discovered = null;
    });
    return config;
  }

  async start(redirectUri: string, extra: Record<string, string>): Promise<string> {
    const s = this.settings();
    if (!this.info().enable) throw new MsgError({ key: 'oidcOff' });
    const config = await this.configuration(s);
    const c = await lib();
    const now = Date.now();
    for (const [k, f] of this.flows) if (f.until <= now || this.flows.size >= FLOWS_MAX) this.flows.delete(k);
    const verifier = c.randomPKCECodeVerifier();
    const state = randomBytes(24).toString('base64url');
    const nonce = randomBytes(24).toString('base64url');
    this.flows.set(state, { verifier, nonce, redirectUri, extra, until: now + FLOW_MS });
    return c
      .buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: s.scopes.join(' '),
        code_challenge: await c.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      })
      .toString();
  }

  async finish(callback: URL): Promise<{ identity: SsoIdentity; extra: Record<string, string> }> {
    const s = this.settings();
    const state = callback.searchParams.get('state') ?? '';
    const flow = this.flows.get(state);
    // Used once: a replayed callback finds nothing.
    this.flows.delete(state);
    if (!flow || flow.until <= Date.now()) throw new MsgError({ key: 'oidcStateUnknown' });
    const error = callback.searchParams.get('error');
    if (error) throw new MsgError({ key: 'oidcProviderError', vars: { detail: `${error} ${callback.searchParams.get('error_description') ?? ''}`.trim().slice(0, 300) } });
    const config = await this.configuration(s);
    const c = await lib();
    const current = new URL(flow.redirectUri);
    current.search = callback.search;
    let claims: Record<string, unknown>;
    let accessToken: string;
    try {
      const tokens = await c.authorizationCodeGrant(config, current, { pkceCodeVerifier: flow.verifier, expectedState: state, expectedNonce: flow.nonce, idTokenExpected: true });
      claims = (tokens.claims() ?? {}) as Record<string, unknown>;
      accessToken = tokens.access_token;
    } catch (err) {
      throw new MsgError({ key: 'oidcRefused', vars: { detail: detail(err) } });
    }
    if (!(s.groupsClaim in claims) && config.serverMetadata().userinfo_endpoint) {
      // Many providers put groups in userinfo only; its subject must be the ID token's.
      const info = (await c.fetchUserInfo(config, accessToken, String(claims.sub)).catch(() => ({}))) as Record<string, unknown>;
      claims = { ...info, ...claims, [s.groupsClaim]: info[s.groupsClaim] };
    }
    const name = claims[s.usernameClaim] ?? claims.sub;
    if (typeof name !== 'string' || name === '') throw new MsgError({ key: 'oidcNoUser', vars: { claim: s.usernameClaim } });
    const raw = claims[s.groupsClaim];
    const groups = Array.isArray(raw) ? raw.filter((g): g is string => typeof g === 'string') : typeof raw === 'string' ? raw.split(',').map((g) => g.trim()).filter(Boolean) : [];
    return { identity: { user: name.slice(0, 128), groups, issuer: String(claims.iss ?? s.issuer) }, extra: flow.extra };
  }

  portalRules(groups: string[]): string[] | null | false {
    const mapped = this.settings().portalGroups.filter((m) => groups.includes(m.group));
    if (mapped.length === 0) return false;
    if (mapped.some((m) => m.rules.length === 0)) return null;
    return [...new Set(mapped.flatMap((m) => m.rules))];
  }

  isAdmin(groups: string[]): boolean {
    const admins = this.settings().adminGroups;
    return groups.some((g) => admins.includes(g));
  }
}
