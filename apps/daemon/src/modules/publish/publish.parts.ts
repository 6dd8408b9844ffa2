/**
 * What a published service asks of the other modules, from the service alone: the web rule that
 * proxies its names to the target with automatic HTTPS, the router forwards (direct), the STUN rule
 * and the records that carry its public port (STUN), the URL to open.
 */
import type { PublishRule, StunRuleInput, WebRuleInput } from '@lucky/contracts';

/**
 * The web rule: HTTPS on `httpsPort`, one sub rule for the names. Direct: with its plain-HTTP
 * companion (redirect, HTTP-01). STUN: no public port 80 to answer HTTP-01 on, so the certificate
 * comes by DNS-01 through the service's DDNS task.
 */
export function webRuleOf(rule: PublishRule, task: string): WebRuleInput {
  const direct = rule.reach === 'direct';
  return {
    name: rule.name,
    enable: true,
    protocol: 'https',
    port: rule.httpsPort,
    httpRedirectPort: direct ? rule.httpPort : 0,
    // Browsers come through the router: sent on to the public HTTPS port, not this one.
    redirectToPort: direct ? rule.publicHttpsPort : 0,
    certs: [direct ? { source: 'auto' } : { source: 'auto', challenge: 'dns-01', dnsTask: task }],
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

/**
 * The STUN rule (STUN mode): a TCP port held open through the NAT, what arrives forwarded to the
 * web rule, the public address sent through the service's DDNS task on every change, the router
 * asked (UPnP) to let the public port in when the service maps the router.
 */
export function stunRuleOf(rule: PublishRule, task: string): StunRuleInput {
  return {
    name: rule.name,
    enable: true,
    protocol: 'tcp',
    localPort: 0,
    mode: 'forward',
    targetHost: '127.0.0.1',
    targetPort: rule.httpsPort,
    stunServers: rule.stunServers,
    upnp: { enable: rule.mapRouter, gatewayUrl: rule.upnpUrl, lease: 3600 },
    ddnsTasks: [task],
    note: `publish: ${rule.name}`.slice(0, 512),
  };
}

/** The forwards asked of the router (direct): public port → the web rule's ports here. */
export function forwardsOf(rule: PublishRule): Array<{ external: number; internal: number }> {
  return [
    { external: rule.publicHttpsPort, internal: rule.httpsPort },
    { external: rule.publicHttpPort, internal: rule.httpPort },
  ];
}

/** The public HTTPS port: the router's forward (direct), what the STUN rule holds (STUN; null before it knows). */
export function publicPortOf(rule: PublishRule, stunPort: number | null): number | null {
  return rule.reach === 'direct' ? rule.publicHttpsPort : stunPort;
}

/** The address a user opens. */
export function urlOf(rule: PublishRule, port: number | null): string {
  if (port === null) return '';
  return `https://${rule.names[0]}${port === 443 ? '' : `:${port}`}/`;
}

export interface PortRecord {
  name: string;
  type: 'SRV' | 'HTTPS';
  value: string;
}

/**
 * The records that tell a client which port (STUN mode), for each name: an HTTPS record (browsers
 * that read it connect to the port without it in the URL) and the SRV of `_https._tcp`.
 */
export function portRecordsOf(rule: PublishRule, port: number): PortRecord[] {
  return rule.names.flatMap((name) => [
    { name, type: 'HTTPS' as const, value: `1 . alpn=h2,http/1.1 port=${port}` },
    { name: `_https._tcp.${name}`, type: 'SRV' as const, value: `0 0 ${port} ${name}.` },
  ]);
}
