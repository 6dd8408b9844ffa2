/**
 * Pure helpers of the single sign-on section (tested in oidc.test.ts): the settings as the form
 * holds them and sends them, the daemon's rule for a kept client secret, and the redirect URIs the
 * provider must know.
 */
import { PORTAL_PATH, SECRET_MASK, safeRoutes, type OidcGroupRules, type OidcSettings, type WebRuleView } from '@lucky/contracts';
import { safeText } from './i18n';

/** The settings as sent: group rows left entirely empty are dropped (an "add" clicked once too often). */
export function formToOidc(f: OidcSettings): OidcSettings {
  const keep = (g: OidcGroupRules) => g.group.trim() !== '' || g.rules.length > 0;
  return { ...f, portalGroups: f.portalGroups.filter(keep) };
}

/**
 * The daemon keeps a masked secret only while the issuer is the one it was stored for (a secret never
 * goes somewhere new without being typed again); otherwise the mask would quietly become a public client.
 */
export function secretAgain(next: Pick<OidcSettings, 'issuer' | 'clientSecret'>, saved: Pick<OidcSettings, 'issuer'>): string | null {
  return next.clientSecret === SECRET_MASK && next.issuer.trim() !== saved.issuer.trim() ? safeText('sso.secretAgain') : null;
}

type WebRuleSites = Pick<WebRuleView, 'protocol' | 'port' | 'redirectToPort' | 'portal' | 'subRules'>;

/** The names of a rule's sites that ask for Lucky login: a sub rule's own switch, else the rule's (as the daemon applies them). */
function loginNames(r: WebRuleSites): string[] {
  return r.subRules.filter((s) => s.portal.enable || r.portal.enable).flatMap((s) => s.domains);
}

/**
 * Where the provider sends the browser back to the console: the callback route under the page's own
 * base, which the API client resolves its calls against too (a safe entry path included).
 */
export const consoleCallback = (base: string): string => new URL('.' + safeRoutes.oidcCallback.path, base).href;

/** The portal's callback on one site, as a template (`<site>`) or filled in. */
export const portalCallback = (site: string): string => `${site}${PORTAL_PATH}sso/callback`;

/**
 * The portal's callbacks for the sites of rules with Lucky login, as browsers reach them: the rule's
 * scheme, its port as seen from outside (HTTPS: the port its companion sends browsers to), wildcard
 * names left out (the provider needs each name written out). Sorted, each once.
 */
export function portalCallbacks(rules: readonly WebRuleSites[]): string[] {
  const out = new Set<string>();
  for (const r of rules) {
    const port = r.protocol === 'https' ? r.redirectToPort || r.port : r.port;
    const shown = port === (r.protocol === 'https' ? 443 : 80) ? '' : `:${port}`;
    for (const name of loginNames(r)) if (!name.startsWith('*')) out.add(portalCallback(`${r.protocol}://${name.includes(':') ? `[${name}]` : name}${shown}`));
  }
  return [...out].sort();
}
