/**
 * What a published service asks of the other modules, from the service alone: the web rule that
 * proxies its names to the target with automatic HTTPS, the router forwards, the URL to open.
 */
import type { PublishRule, WebRuleInput } from '@lucky/contracts';

/** The web rule: HTTPS on `httpsPort` with its plain-HTTP companion, one sub rule for the names. */
export function webRuleOf(rule: PublishRule): WebRuleInput {
  return {
    name: rule.name,
    enable: true,
    protocol: 'https',
    port: rule.httpsPort,
    httpRedirectPort: rule.httpPort,
    // Browsers come through the router: sent on to the public HTTPS port, not this one.
    redirectToPort: rule.publicHttpsPort,
    certs: [{ source: 'auto' }],
    subRules: [
      {
        name: rule.name,
        domains: rule.names,
        // A LAN device's HTTPS has its own certificate, seldom one anything trusts.
        service: { type: 'proxy', targets: [rule.target], skipTlsVerify: true },
      },
    ],
    note: `publish: ${rule.name}`.slice(0, 512),
  };
}

/** The forwards asked of the router: public port → the web rule's ports here. */
export function forwardsOf(rule: PublishRule): Array<{ external: number; internal: number }> {
  return [
    { external: rule.publicHttpsPort, internal: rule.httpsPort },
    { external: rule.publicHttpPort, internal: rule.httpPort },
  ];
}

/** The address a user opens. */
export function urlOf(rule: PublishRule): string {
  return `https://${rule.names[0]}${rule.publicHttpsPort === 443 ? '' : `:${rule.publicHttpsPort}`}/`;
}
