/**
 * Single sign-on with an OpenID Connect provider (Authentik, Keycloak, Authelia, Google...): the
 * console and the login portal can sign people in through it, by the authorization code flow with
 * PKCE. The provider's groups decide who may: `adminGroups` for the console, `portalGroups` for the
 * web rules that require Lucky login. Kept in lucky_base.lkcf beside the other security settings.
 */
import { z } from 'zod';
import { msgKey } from './i18n.js';
import { secret } from './secrets.js';

const ZGroup = z.string().trim().min(1, { error: msgKey('cannotBeEmpty') }).max(128);
const ZClaimName = z.string().trim().regex(/^[A-Za-z0-9_:./-]{1,128}$/, { error: msgKey('oidcClaimInvalid') });

export const ZOidcGroupRules = z.object({
  group: ZGroup,
  /** Web rules (keys) its members may open; empty = every rule that requires Lucky login. */
  rules: z.array(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/)).max(256).default([]),
});
export type OidcGroupRules = z.infer<typeof ZOidcGroupRules>;

const ZIssuer = z
  .string()
  .trim()
  .max(1024)
  .refine(
    (s) => {
      if (s === '') return true;
      try {
        const u = new URL(s);
        return (u.protocol === 'https:' || u.protocol === 'http:') && !u.search && !u.hash && !u.username;
      } catch {
        return false;
      }
    },
    { error: msgKey('invalidUrl') },
  );

export const ZOidcSettings = z.object({
  enable: z.boolean().default(false),
  /** The provider's issuer: its settings are read from `<issuer>/.well-known/openid-configuration`. */
  issuer: ZIssuer.default(''),
  clientId: z.string().trim().max(256).default(''),
  /** Empty for a public client (PKCE alone); answers show the mask, which keeps the stored secret. */
  clientSecret: secret(z.string().max(1024), { boundTo: ['issuer'] }).default(''),
  /** What the sign-in button says: "Sign in with {label}". */
  label: z.string().trim().min(1).max(64).default('SSO'),
  scopes: z.array(z.string().trim().regex(/^[\x21\x23-\x5B\x5D-\x7E]{1,64}$/)).min(1).max(16).default(['openid', 'profile', 'email', 'groups']),
  /** The claim that names the person (the portal's user header carries it). */
  usernameClaim: ZClaimName.default('preferred_username'),
  groupsClaim: ZClaimName.default('groups'),
  /** Members of any of these may manage Lucky (sign in to the console); empty = nobody through SSO. */
  adminGroups: z.array(ZGroup).max(32).default([]),
  /** Which groups may open which rules with Lucky login; a person in none of them is refused. */
  portalGroups: z.array(ZOidcGroupRules).max(64).default([]),
});
export type OidcSettings = z.infer<typeof ZOidcSettings>;

/** What the login pages need to offer the button. */
export const ZOidcInfo = z.object({ enable: z.boolean(), label: z.string() });
