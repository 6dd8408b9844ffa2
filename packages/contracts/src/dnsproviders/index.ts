/**
 * The table of DNS providers: one description per provider file, in the order the console lists
 * them within a group. Adding a provider: its description here, its client in the daemon
 * (apps/daemon/src/lib/dns/providers/), a fake and a row in the provider tests.
 */
import { alidns } from './alidns.js';
import { aliesa } from './aliesa.js';
import { azure } from './azure.js';
import { baiducloud } from './baiducloud.js';
import { bunny } from './bunny.js';
import { callback } from './callback.js';
import { cloudflare } from './cloudflare.js';
import { cloudns } from './cloudns.js';
import type { DnsProviderDescription } from './define.js';
import { desec } from './desec.js';
import { digitalocean } from './digitalocean.js';
import { dnsimple } from './dnsimple.js';
import { dnsla } from './dnsla.js';
import { dnsmadeeasy } from './dnsmadeeasy.js';
import { dnspod } from './dnspod.js';
import { duckdns } from './duckdns.js';
import { dynadot } from './dynadot.js';
import { dyndns2 } from './dyndns2.js';
import { dynu } from './dynu.js';
import { dynv6 } from './dynv6.js';
import { edgeone } from './edgeone.js';
import { eranet } from './eranet.js';
import { gandi } from './gandi.js';
import { gcore } from './gcore.js';
import { godaddy } from './godaddy.js';
import { he } from './he.js';
import { hetzner } from './hetzner.js';
import { hetznercloud } from './hetznercloud.js';
import { huaweicloud } from './huaweicloud.js';
import { ionos } from './ionos.js';
import { linode } from './linode.js';
import { luadns } from './luadns.js';
import { mythicbeasts } from './mythicbeasts.js';
import { namecheap } from './namecheap.js';
import { namecom } from './namecom.js';
import { namesilo } from './namesilo.js';
import { netlify } from './netlify.js';
import { njalla } from './njalla.js';
import { noip } from './noip.js';
import { nowcn } from './nowcn.js';
import { ns1 } from './ns1.js';
import { ovh } from './ovh.js';
import { porkbun } from './porkbun.js';
import { powerdns } from './powerdns.js';
import { rainyun } from './rainyun.js';
import { rfc2136 } from './rfc2136.js';
import { route53 } from './route53.js';
import { scaleway } from './scaleway.js';
import { spaceship } from './spaceship.js';
import { technitium } from './technitium.js';
import { tencentcloud } from './tencentcloud.js';
import { vercel } from './vercel.js';
import { volcengine } from './volcengine.js';
import { vultr } from './vultr.js';

export const DNS_PROVIDER_TABLE = {
  cloudflare,
  alidns,
  dnspod,
  tencentcloud,
  huaweicloud,
  baiducloud,
  volcengine,
  edgeone,
  aliesa,
  dnsla,
  rainyun,
  nowcn,
  eranet,
  porkbun,
  godaddy,
  namesilo,
  namecheap,
  dynv6,
  duckdns,
  desec,
  vercel,
  digitalocean,
  hetzner,
  linode,
  gandi,
  hetznercloud,
  scaleway,
  bunny,
  vultr,
  dnsimple,
  netlify,
  njalla,
  ionos,
  dnsmadeeasy,
  mythicbeasts,
  luadns,
  route53,
  azure,
  ovh,
  cloudns,
  gcore,
  ns1,
  namecom,
  dynadot,
  spaceship,
  dynu,
  noip,
  he,
  callback,
  rfc2136,
  dyndns2,
  powerdns,
  technitium,
} satisfies Record<string, DnsProviderDescription>;

export * from './define.js';
export { OVH_REGIONS } from './ovh.js';
