/**
 * `oidc`: single sign-on through the operator's OpenID Connect provider (security/oidc.ts), for the
 * login portal's pages. The daemon keeps the provider's settings, the flows in progress (state,
 * nonce, PKCE verifier) and the checks of the ID token; a page only sends the person to `start`'s
 * URL and hands `finish` the URL they came back to.
 */
export interface SsoIdentity {
  /** The person's name (the configured claim, else the subject). */
  user: string;
  groups: string[];
  issuer: string;
}

export interface OidcService {
  /** Whether sign-in pages offer the button, and what it says. */
  info(): { enable: boolean; label: string };
  /** The provider's sign-in URL for a person who comes back to `redirectUri`; `extra` comes back with them. */
  start(redirectUri: string, extra: Record<string, string>): Promise<string>;
  /** Checks the answer the person came back with (`callback`: the redirect URI with its query); throws a MsgError. */
  finish(callback: URL): Promise<{ identity: SsoIdentity; extra: Record<string, string> }>;
  /** The web rules a person of these groups may open: null = every one, false = none (no group mapped). */
  portalRules(groups: string[]): string[] | null | false;
}
