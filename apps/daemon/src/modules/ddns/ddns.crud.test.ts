/**
 * Every HTTP provider through the `dnsProviders` client of a running daemon (the path DDNS, ACME
 * DNS-01 and STUN take), against local stand-ins that check each request the way the provider
 * documents it (signature, headers, body) and answer in its documented shapes, errors included:
 * A and AAAA created, read back, left alone when equal, updated, deleted; TXT created, left alone,
 * rewritten, removed by value (another client's record stays) and all; wrong credentials; a rate
 * limit (waited out where the provider says how long, reported otherwise); a zone the account does
 * not hold. One row per provider; RFC 2136 (BIND) and the callback have tests of their own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DDNS_PROVIDER_INFO, DDNS_PROVIDERS, renderMsg, type DdnsCredentials, type DdnsProviderName, type Msg } from '@lucky/contracts';
import { startTestDaemon, type TestDaemon } from '../../test/harness.js';
import {
  fakeAliDns,
  fakeAliesa,
  fakeAzure,
  fakeBaidu,
  fakeCloudflare,
  fakeCloudns,
  fakeDesec,
  fakeDigitalocean,
  fakeDnsla,
  fakeDnspod,
  fakeDuckdns,
  fakeDynadot,
  fakeDyndns,
  fakeDynu,
  fakeDynv6,
  fakeEdgeone,
  fakeEranet,
  fakeGandi,
  fakeGcore,
  fakeGodaddy,
  fakeHe,
  fakeHetzner,
  fakeHuawei,
  fakeLinode,
  fakeNoip,
  fakeNowcn,
  fakeNs1,
  fakeOvh,
  fakeNamecheap,
  fakeNamecom,
  fakeNamesilo,
  fakePorkbun,
  fakeRainyun,
  fakeRoute53,
  fakeSpaceship,
  fakeVercel,
  fakeVolcengine,
  fakeBunny,
  fakeDnsimple,
  fakeHetznercloud,
  fakeNetlify,
  fakeNjalla,
  fakePowerdns,
  fakeScaleway,
  fakeTechnitium,
  fakeVultr,
  DNSPOD_TOKEN,
  fakeDnsmadeeasy,
  fakeIonos,
  fakeLuadns,
  fakeMythicbeasts,
  RAINYUN_DOMAIN_ID,
  type FakeCreds,
  type FakeProvider,
} from '../../lib/dns/testing/fakes.js';

interface Case {
  provider: DdnsProviderName;
  /** A second row of a provider (another way to sign in): its name here, and the first row's stand-in it shares. */
  variant?: string;
  start: (c: FakeCreds) => Promise<FakeProvider>;
  /** The account, as a task holds it. */
  creds: Partial<DdnsCredentials>;
  /** What the stand-in checks, when not the account's id and secret. */
  fakeCreds?: FakeCreds;
  /** The name written (default home.example.com) and, when it differs, the stand-in's name for it. */
  domain?: string;
  name?: string;
  /** The TXT record's line and the stand-in's name for it (default _acme-challenge.<domain>). */
  txtDomain?: string;
  txtName?: string;
  /** One TXT per domain (DuckDNS): nothing to tell apart, remove clears it, addresses cannot be removed. */
  single?: boolean;
  /** Credentials the provider refuses, and what the error then says (English). */
  bad: Partial<DdnsCredentials>;
  badText: RegExp;
  /** A rate limit: sent again after the wait the provider asks for (`retried`), or reported at once with this text. */
  limit: 'retried' | RegExp;
  /** A name in a zone the account does not hold, and what the error says. */
  noZone?: { domain: string; text: RegExp };
  /** An update replaces the record (a new id) instead of changing it in place. */
  newIdOnUpdate?: boolean;
  /** Records can only be updated, not created (Hurricane Electric's dynamic records): the test makes them first. */
  mustExist?: boolean;
}

const ZONE_MISSING = /zone not-mine\.org not found in this account/;

const CASES: Case[] = [
  {
    provider: 'cloudflare',
    start: fakeCloudflare,
    creds: { secret: 'cf-token-123456' },
    bad: { secret: 'wrong-token' },
    badText: /Cloudflare: 10000 Authentication error/,
    limit: 'retried',
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'alidns',
    start: fakeAliDns,
    creds: { id: 'LTAI5tTestKeyId', secret: 'ali-secret-abcdef' },
    bad: { id: 'LTAI5tTestKeyId', secret: 'wrong' },
    badText: /SignatureDoesNotMatch/,
    limit: /Throttling\.User/,
  },
  {
    provider: 'dnspod',
    start: fakeDnspod,
    creds: { id: 'AKIDtestSecretId', secret: 'tc3-secret-key-xyz' },
    domain: 'nas:example.com',
    name: 'nas.example.com',
    txtDomain: '_acme-challenge.nas:example.com',
    txtName: '_acme-challenge.nas.example.com',
    bad: { id: 'AKIDtestSecretId', secret: 'wrong' },
    badText: /AuthFailure\.SignatureFailure/,
    limit: /RequestLimitExceeded/,
  },
  {
    provider: 'dnspod',
    variant: 'dnspod (DNSPod Token, dnsapi.cn)',
    start: fakeDnspod,
    creds: { id: DNSPOD_TOKEN.id, secret: DNSPOD_TOKEN.token },
    bad: { secret: 'wrong-token' },
    badText: /DNSPod: Record\.List: -1 Login failed/,
    limit: /DNSPod: Record\.List: -2 API usage is limited/,
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'huaweicloud',
    start: fakeHuawei,
    creds: { id: 'HWAKTEST0001', secret: 'hw-sk-secret-0001' },
    bad: { id: 'HWAKTEST0001', secret: 'wrong' },
    badText: /credentials were refused \(HTTP 401\) APIGW\.0301/,
    limit: /rate limited by the provider \(HTTP 429\)/,
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'baiducloud',
    start: fakeBaidu,
    creds: { id: 'bce-ak-test', secret: 'bce-sk-secret' },
    bad: { id: 'bce-ak-test', secret: 'wrong' },
    badText: /credentials were refused \(HTTP 403\).*SignatureDoesNotMatch/,
    limit: 'retried',
  },
  {
    provider: 'porkbun',
    start: fakePorkbun,
    creds: { id: 'pk1_test', secret: 'sk1_secret_test' },
    bad: { id: 'pk1_test', secret: 'wrong' },
    badText: /Invalid API key/,
    limit: 'retried',
  },
  {
    provider: 'godaddy',
    start: fakeGodaddy,
    creds: { id: 'gd-key', secret: 'gd-secret-value' },
    bad: { id: 'gd-key', secret: 'wrong' },
    badText: /credentials were refused \(HTTP 401\).*UNABLE_TO_AUTHENTICATE/,
    limit: 'retried',
  },
  {
    provider: 'namesilo',
    start: fakeNamesilo,
    creds: { secret: 'namesilo-key' },
    bad: { secret: 'wrong' },
    badText: /110 Invalid API Key/,
    limit: 'retried',
  },
  {
    provider: 'desec',
    start: fakeDesec,
    creds: { secret: 'desec-token-value' },
    bad: { secret: 'wrong' },
    badText: /credentials were refused \(HTTP 401\).*Invalid token/,
    limit: 'retried',
  },
  {
    provider: 'vercel',
    start: fakeVercel,
    creds: { id: 'team_abc', secret: 'vercel-token' },
    bad: { id: 'team_abc', secret: 'wrong' },
    badText: /credentials were refused \(HTTP 403\)/,
    limit: 'retried',
  },
  {
    provider: 'duckdns',
    start: fakeDuckdns,
    creds: { secret: 'duck-token-value' },
    domain: 'myhome.duckdns.org',
    txtDomain: '_acme-challenge.myhome.duckdns.org',
    txtName: 'myhome.duckdns.org',
    single: true,
    bad: { secret: 'wrong' },
    badText: /DuckDNS: KO/,
    limit: 'retried',
  },
  {
    provider: 'dynv6',
    start: fakeDynv6,
    creds: { secret: 'dynv6-token-value' },
    // The zone's own A/AAAA (its ipv4address/ipv6prefix), its TXT records; a zone of one's own beside it.
    domain: 'myhome.dynv6.net',
    bad: { secret: 'wrong' },
    badText: /credentials were refused \(HTTP 401\) invalid authentication token/,
    limit: /Dynv6: rate limited by the provider \(HTTP 429\)/,
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'namecheap',
    start: fakeNamecheap,
    creds: { secret: 'nc-ddns-password' },
    bad: { secret: 'wrong' },
    badText: /Passwords do not match/,
    limit: 'retried',
  },
  {
    provider: 'digitalocean',
    start: fakeDigitalocean,
    creds: { secret: 'dop_v1_token' },
    bad: { secret: 'wrong' },
    badText: /credentials were refused \(HTTP 401\) Unauthorized Unable to authenticate you/,
    limit: 'retried',
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'hetzner',
    start: fakeHetzner,
    creds: { secret: 'hetzner-api-token' },
    bad: { secret: 'wrong' },
    badText: /credentials were refused \(HTTP 401\) Invalid authentication credentials/,
    limit: 'retried',
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'linode',
    start: fakeLinode,
    creds: { secret: 'linode-pat' },
    bad: { secret: 'wrong' },
    badText: /credentials were refused \(HTTP 401\) Invalid Token/,
    limit: 'retried',
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'gandi',
    start: fakeGandi,
    creds: { secret: 'gandi-pat' },
    bad: { secret: 'wrong' },
    badText: /credentials were refused \(HTTP 401\) The server could not verify/,
    limit: 'retried',
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'dynu',
    start: fakeDynu,
    creds: { secret: 'dynu-api-key' },
    bad: { secret: 'wrong' },
    badText: /credentials were refused \(HTTP 401\) API-Key is not valid/,
    limit: 'retried',
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'noip',
    start: fakeNoip,
    creds: { id: 'noip-user', secret: 'noip-pass' },
    bad: { id: 'noip-user', secret: 'wrong' },
    badText: /No-IP: wrong user name or password \(badauth\)/,
    limit: 'retried',
    noZone: { domain: 'home.not-mine.org', text: /No-IP: host name home\.not-mine\.org is not in this account \(nohost\)/ },
  },
  {
    provider: 'dyndns2',
    start: fakeDyndns,
    creds: { id: 'router', secret: 'router-pass', server: '{fake}/nic/update' },
    bad: { id: 'router', secret: 'wrong' },
    badText: /dyndns2: wrong user name or password \(badauth\)/,
    limit: 'retried',
    noZone: { domain: 'home.not-mine.org', text: /host name home\.not-mine\.org is not in this account/ },
  },
  {
    provider: 'he',
    start: fakeHe,
    creds: { secret: 'he-record-key' },
    mustExist: true,
    bad: { secret: 'wrong' },
    badText: /Hurricane Electric: wrong user name or password \(badauth\)/,
    limit: 'retried',
    noZone: { domain: 'home.not-mine.org', text: /host name home\.not-mine\.org is not in this account \(nohost\)/ },
  },
  {
    provider: 'tencentcloud',
    start: (c) => fakeDnspod(c, 'tencentcloud'),
    creds: { id: 'AKIDtencentCloud', secret: 'tc3-cloud-secret' },
    bad: { id: 'AKIDtencentCloud', secret: 'wrong' },
    badText: /Tencent Cloud DNS: DescribeRecordList: AuthFailure\.SignatureFailure/,
    limit: /RequestLimitExceeded/,
  },
  {
    provider: 'route53',
    start: fakeRoute53,
    creds: { id: 'AKIAIOSFODNN7EXAMPLE', secret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
    bad: { id: 'AKIAIOSFODNN7EXAMPLE', secret: 'wrong' },
    badText: /Route 53: the credentials were refused \(HTTP 403\) SignatureDoesNotMatch/,
    limit: /Route 53: HTTP 400 Throttling Rate exceeded/,
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'azure',
    start: fakeAzure,
    creds: { id: 'app-client-id', secret: 'client-secret-value', id2: 'tenant-0001', id3: 'sub-0001' },
    bad: { secret: 'wrong' },
    badText: /Azure: the credentials were refused \(HTTP 401\) AADSTS7000215: Invalid client secret provided/,
    limit: 'retried',
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'ovh',
    start: fakeOvh,
    creds: { server: 'ovh-eu', id: 'ovh-app-key', secret: 'ovh-app-secret', secret2: 'ovh-consumer-key' },
    bad: { secret: 'wrong' },
    badText: /OVHcloud: HTTP 400 INVALID_SIGNATURE Invalid signature/,
    limit: 'retried',
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'volcengine',
    start: fakeVolcengine,
    creds: { id: 'AKLTvolcaccess', secret: 'volc-secret-key' },
    bad: { secret: 'wrong' },
    badText: /Volcengine: the credentials were refused \(HTTP 401\) ListZones: SignatureDoesNotMatch/,
    limit: /rate limited by the provider \(HTTP 429\)/,
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'edgeone',
    start: fakeEdgeone,
    creds: { id: 'AKIDedgeone', secret: 'edgeone-secret' },
    bad: { secret: 'wrong' },
    badText: /EdgeOne: DescribeZones: AuthFailure\.SignatureFailure/,
    limit: /RequestLimitExceeded/,
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'aliesa',
    start: fakeAliesa,
    creds: { id: 'LTAI5tEsaKeyId', secret: 'esa-secret' },
    bad: { secret: 'wrong' },
    badText: /ESA: ListSites: SignatureDoesNotMatch/,
    limit: /Throttling\.User/,
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'dnsla',
    start: fakeDnsla,
    creds: { id: 'dnsla-api-id', secret: 'dnsla-api-secret' },
    bad: { secret: 'wrong' },
    badText: /DNS\.LA: the credentials were refused \(HTTP 401\) APIID 或 APISecret 错误/,
    limit: 'retried',
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'rainyun',
    start: fakeRainyun,
    // No domain id: the domain is looked up by name (the id's own path: the test at the end).
    creds: { secret: 'rainyun-api-key' },
    bad: { secret: 'wrong' },
    badText: /Rainyun: the credentials were refused \(HTTP 401\) 30001 未登录或 API 密钥错误/,
    limit: 'retried',
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'nowcn',
    start: fakeNowcn,
    creds: { id: '100234', secret: 'nowcn-api-key' },
    bad: { secret: 'wrong' },
    badText: /Now\.cn: auth-userid 或 api-key 错误/,
    limit: 'retried',
    noZone: { domain: 'home.not-mine.org', text: /Now\.cn: 域名不存在或不属于该账户/ },
  },
  {
    provider: 'eranet',
    start: fakeEranet,
    creds: { id: 'era-instance-id', secret: 'era-secret' },
    bad: { secret: 'wrong' },
    badText: /Eranet: the credentials were refused \(HTTP 403\) SignatureDoesNotMatch/,
    limit: 'retried',
    noZone: { domain: 'home.not-mine.org', text: /Eranet: 域名不存在或不属于该账户/ },
  },
  {
    provider: 'cloudns',
    start: fakeCloudns,
    creds: { id: '12345', secret: 'cloudns-auth-password' },
    bad: { secret: 'wrong' },
    badText: /ClouDNS: Invalid authentication, incorrect auth-id or auth-password/,
    limit: 'retried',
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'gcore',
    start: fakeGcore,
    creds: { secret: 'gcore-permanent-token' },
    bad: { secret: 'wrong' },
    badText: /Gcore: the credentials were refused \(HTTP 401\) authentication failed: invalid API key/,
    limit: 'retried',
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'ns1',
    start: fakeNs1,
    creds: { secret: 'ns1-api-key' },
    bad: { secret: 'wrong' },
    badText: /NS1: the credentials were refused \(HTTP 401\) Unauthorized/,
    limit: /NS1 \(IBM NS1 Connect\): rate limited by the provider \(HTTP 429\)/,
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'namecom',
    start: fakeNamecom,
    creds: { id: 'namecom-user', secret: 'namecom-token' },
    bad: { secret: 'wrong' },
    badText: /Name\.com: the credentials were refused \(HTTP 401\) Unauthenticated/,
    limit: 'retried',
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'dynadot',
    start: fakeDynadot,
    creds: { secret: 'dynadot-ddns-password' },
    bad: { secret: 'wrong' },
    badText: /Dynadot: invalid dynamic dns password/,
    limit: 'retried',
    noZone: { domain: 'home.not-mine.org', text: /Dynadot: domain not found in your account/ },
  },
  {
    provider: 'spaceship',
    start: fakeSpaceship,
    creds: { id: 'spaceship-key', secret: 'spaceship-secret' },
    newIdOnUpdate: true,
    bad: { secret: 'wrong' },
    badText: /Spaceship: the credentials were refused \(HTTP 401\) API key or secret is not valid/,
    limit: 'retried',
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'powerdns',
    start: fakePowerdns,
    creds: { server: '{fake}', secret: 'pdns-api-key' },
    bad: { secret: 'wrong' },
    badText: /PowerDNS: the credentials were refused \(HTTP 401\) Unauthorized/,
    limit: /PowerDNS \(HTTP API, self-hosted\): rate limited by the provider \(HTTP 429\)/,
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'technitium',
    start: fakeTechnitium,
    creds: { server: '{fake}', secret: 'technitium-api-token' },
    bad: { secret: 'wrong' },
    badText: /Technitium: invalid-token: Invalid token or session expired\./,
    limit: /rate limited by the provider \(HTTP 429\)/,
    noZone: { domain: 'home.not-mine.org', text: /Technitium: error: No such zone was found: not-mine\.org/ },
  },
  {
    provider: 'bunny',
    start: fakeBunny,
    creds: { secret: 'bunny-access-key' },
    bad: { secret: 'wrong' },
    badText: /Bunny DNS: the credentials were refused \(HTTP 401\) Authorization has been denied/,
    limit: /Bunny DNS: rate limited by the provider \(HTTP 429\)/,
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'vultr',
    start: fakeVultr,
    creds: { secret: 'vultr-api-key' },
    bad: { secret: 'wrong' },
    badText: /Vultr: the credentials were refused \(HTTP 401\) Invalid API token/,
    limit: /Vultr: rate limited by the provider \(HTTP 429\)/,
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'dnsimple',
    start: fakeDnsimple,
    creds: { id: '1385', secret: 'dnsimple-account-token' },
    bad: { secret: 'wrong' },
    badText: /DNSimple: the credentials were refused \(HTTP 401\) Authentication failed/,
    limit: 'retried',
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'netlify',
    start: fakeNetlify,
    creds: { secret: 'netlify-pat' },
    newIdOnUpdate: true,
    bad: { secret: 'wrong' },
    badText: /Netlify: the credentials were refused \(HTTP 401\) Access Denied/,
    limit: 'retried',
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'scaleway',
    start: fakeScaleway,
    creds: { secret: 'scw-secret-key' },
    bad: { secret: 'wrong' },
    badText: /Scaleway: the credentials were refused \(HTTP 401\) authentication is denied/,
    limit: /Scaleway: rate limited by the provider \(HTTP 429\)/,
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'njalla',
    start: fakeNjalla,
    creds: { secret: 'njalla-api-token' },
    bad: { secret: 'wrong' },
    badText: /Njalla: list-records: 403 Invalid token\./,
    limit: /Njalla: rate limited by the provider \(HTTP 429\)/,
    noZone: { domain: 'home.not-mine.org', text: /Njalla: list-records: 404 Domain not found/ },
  },
  {
    provider: 'hetznercloud',
    start: fakeHetznercloud,
    creds: { secret: 'hcloud-api-token' },
    bad: { secret: 'wrong' },
    badText: /Hetzner Cloud DNS: the credentials were refused \(HTTP 401\) unauthorized unable to authenticate/,
    limit: 'retried',
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'ionos',
    start: fakeIonos,
    creds: { secret: 'a1b2c3.ionos-secret' },
    bad: { secret: 'wrong' },
    badText: /IONOS: the credentials were refused \(HTTP 401\).*UNAUTHORIZED/,
    limit: /IONOS: rate limited by the provider \(HTTP 429\)/,
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'dnsmadeeasy',
    start: fakeDnsmadeeasy,
    creds: { id: '1c1a3c91-4770-4ce7-96f4-54c0eb0e457a', secret: 'c9b5625f-9834-4ff8-baba-4ed5f32cae55' },
    bad: { secret: 'wrong' },
    badText: /DNS Made Easy: the credentials were refused \(HTTP 403\).*API key and secret key do not match/,
    limit: /DNS Made Easy: HTTP 400.*Rate limit exceeded/,
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'mythicbeasts',
    start: fakeMythicbeasts,
    creds: { id: 'mb-key-id', secret: 'mb-key-secret' },
    bad: { secret: 'wrong' },
    badText: /Mythic Beasts: the credentials were refused \(HTTP 401\) Authentication failed/,
    limit: /Mythic Beasts: rate limited by the provider \(HTTP 429\)/,
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
  {
    provider: 'luadns',
    start: fakeLuadns,
    creds: { id: 'joe@example.com', secret: 'luadns-api-token' },
    bad: { secret: 'wrong' },
    badText: /LuaDNS: the credentials were refused \(HTTP 401\) Invalid email or API key/,
    limit: /LuaDNS: rate limited by the provider \(HTTP 429\)/,
    noZone: { domain: 'home.not-mine.org', text: ZONE_MISSING },
  },
];

/** A row's name: its provider, or its variant. */
const rowOf = (c: Case) => c.variant ?? c.provider;

const ADDRESSES = [
  ['A', '192.0.2.10', '192.0.2.11'],
  ['AAAA', '2001:db8::10', '2001:db8::11'],
] as const;

const en = (err: unknown) => renderMsg('en_US', (err as { msg: Msg }).msg);

describe('every provider through the dnsProviders client', () => {
  let d: TestDaemon;
  const fakes = new Map<string, FakeProvider>();

  // A credential holding `{fake}` (dyndns2's update URL) points at the stand-in; the others get it as their API base.
  const withFake = new Set(CASES.filter((c) => JSON.stringify(c.creds).includes('{fake}')));
  beforeAll(async () => {
    for (const c of CASES) {
      const fake = c.variant ? fakes.get(c.provider)! : await c.start(c.fakeCreds ?? { id: '', secret: '', ...c.creds });
      fakes.set(rowOf(c), fake);
      if (withFake.has(c)) c.creds = JSON.parse(JSON.stringify(c.creds).replaceAll('{fake}', fake.url)) as Partial<DdnsCredentials>;
    }
    const endpoints = CASES.filter((c) => !withFake.has(c) && !c.variant).map((c) => [c.provider, fakes.get(rowOf(c))!.url]);
    d = await startTestDaemon({ env: { nativeRelay: true, ddnsTestEndpoints: Object.fromEntries(endpoints) } });
  });
  afterAll(async () => {
    await d?.close();
    for (const f of new Set(fakes.values())) await f.close();
  });

  const service = () => d.runtime.deps.modules.service('dnsProviders');

  it('every HTTP provider has a row here', () => {
    expect(CASES.filter((c) => !c.variant).map((c) => c.provider).sort()).toEqual(DDNS_PROVIDERS.filter((p) => p !== 'rfc2136' && p !== 'callback').sort());
  });

  for (const c of CASES) {
    const info = DDNS_PROVIDER_INFO[c.provider];
    const domain = c.domain ?? 'home.example.com';
    const name = c.name ?? domain;
    const client = async (creds = c.creds) => (await service()).client(c.provider, creds, { timeoutMs: 5000 });

    it(`${rowOf(c)}: A${info.ipv6 ? ', AAAA' : ''}: create, read, same, update${info.delete && !c.single ? ', delete' : ''}`, async () => {
      const fake = fakes.get(rowOf(c))!;
      const cl = await client();
      const neighbour = fake.add('other.example.com', 'A', '198.51.100.7', 3600);
      for (const [type, first, second] of ADDRESSES) {
        if (!info.records.includes(type)) continue;
        const rec = { domain, type };
        const values = () => fake.all(name, type).map((r) => r.value);
        if (c.mustExist) fake.add(name, type, type === 'A' ? '192.0.2.1' : '2001:db8::1', 300);
        const outcome = await cl.set({ ...rec, value: first });
        expect(outcome).toBe(info.read ? 'created' : 'updated');
        expect(values()).toEqual([first]);
        if (info.read) {
          expect(await cl.list(rec)).toEqual([first]);
          expect(await cl.set({ ...rec, value: first })).toBe('same');
        } else expect(await cl.list(rec)).toBeNull();
        const id = fake.find(name, type)!.id;
        expect(await cl.set({ ...rec, value: second })).toBe('updated');
        expect(values()).toEqual([second]);
        if (!c.newIdOnUpdate) expect(fake.find(name, type)!.id).toBe(id);
        if (info.delete && !c.single) {
          expect(await cl.remove(rec)).toBe(true);
          expect(values()).toEqual([]);
          if (info.read) expect(await cl.list(rec)).toEqual([]);
        } else if (!info.delete) expect(await cl.remove(rec)).toBe(false);
      }
      expect(fake.records.get(neighbour.id)).toEqual(neighbour);
      expect(fake.rejected, fake.lastReject).toBe(0);
    });

    if (info.txt) {
      it(`${rowOf(c)}: TXT: create, same, rewrite, remove only its own value, then all`, async () => {
        const fake = fakes.get(rowOf(c))!;
        const cl = await client();
        const rec = { domain: c.txtDomain ?? `_acme-challenge.${domain}`, type: 'TXT' as const };
        const txtName = c.txtName ?? `_acme-challenge.${name}`;
        const texts = () => fake.all(txtName, 'TXT').map((r) => r.value).sort();
        const neighbour = fake.add('www.example.com', 'A', '192.0.2.7', 3600);

        if (c.mustExist) fake.add(txtName, 'TXT', 'placeholder', 300);
        if (!info.read && !c.single) {
          // Write-only, records kept by the provider: written, `nochg` is same, rewritten; never deleted.
          expect(await cl.set({ ...rec, value: 'first_token-A1' })).toBe('updated');
          expect(texts()).toEqual(['first_token-A1']);
          expect(await cl.set({ ...rec, value: 'first_token-A1' })).toBe('same');
          expect(await cl.set({ ...rec, value: 'second_token-B2' })).toBe('updated');
          expect(texts()).toEqual(['second_token-B2']);
          expect(await cl.list(rec)).toBeNull();
          expect(await cl.remove({ ...rec, value: 'second_token-B2' })).toBe(false);
          expect(texts()).toEqual(['second_token-B2']);
        } else {
          // DuckDNS answers UPDATED for a new value too: it cannot say whether there was one.
          expect(await cl.set({ ...rec, value: 'first_token-A1' })).toBe(c.single ? 'updated' : 'created');
          expect(texts()).toEqual(['first_token-A1']);
          expect(await cl.set({ ...rec, value: 'first_token-A1' })).toBe('same');
          const id = fake.find(txtName, 'TXT')!.id;
          expect(await cl.set({ ...rec, value: 'second_token-B2' })).toBe('updated');
          expect(texts()).toEqual(['second_token-B2']);
          if (!c.newIdOnUpdate) expect(fake.find(txtName, 'TXT')!.id).toBe(id);

          if (c.single) {
            expect(await cl.remove({ ...rec, value: 'second_token-B2' })).toBe(true);
            expect(texts()).toEqual([]);
          } else {
            // Another client's record at the same name (quotes and all): ours is still found equal,
            // and removing ours leaves it.
            const other = 'v=other "client" \\ value';
            fake.add(txtName, 'TXT', other, 3600);
            if (info.read) expect((await cl.list(rec))!.sort()).toEqual(['second_token-B2', other].sort());
            expect(await cl.set({ ...rec, value: 'second_token-B2' })).toBe('same');
            expect(await cl.remove({ ...rec, value: 'second_token-B2' })).toBe(true);
            expect(texts()).toEqual([other]);
            // A value that is not there removes nothing.
            expect(await cl.remove({ ...rec, value: 'never-written' })).toBe(true);
            expect(texts()).toEqual([other]);
            // Without a value every TXT of the name goes.
            expect(await cl.remove(rec)).toBe(true);
            expect(texts()).toEqual([]);
          }
        }
        expect(fake.records.get(neighbour.id)).toEqual(neighbour);
        expect(fake.rejected, fake.lastReject).toBe(0);
      });
    } else {
      it(`${rowOf(c)}: TXT is refused before any call`, async () => {
        const fake = fakes.get(rowOf(c))!;
        const before = fake.requests;
        await expect((await client()).set({ domain: `_acme-challenge.${domain}`, type: 'TXT', value: 'x' })).rejects.toThrow(/cannot set TXT records/);
        expect(fake.requests).toBe(before);
      });
    }

    it(`${rowOf(c)}: wrong credentials, a rate limit${c.noZone ? ', a zone the account does not hold' : ''}: clear errors`, async () => {
      const fake = fakes.get(rowOf(c))!;
      const bad = await (await client({ ...c.creds, ...c.bad })).set({ domain, type: 'A', value: '192.0.2.99' }).catch((e: unknown) => e);
      expect(en(bad)).toMatch(c.badText);
      expect(fake.rejected).toBeGreaterThan(0);
      expect(en(bad)).not.toContain(c.creds.secret!);
      fake.rejected = 0;

      const cl = await client();
      fake.limitNext = 1;
      if (c.limit === 'retried') {
        // Asked to wait (Retry-After), the client waits and sends the request again.
        await cl.set({ domain, type: 'A', value: '192.0.2.98' });
        expect(fake.find(name, 'A')?.value).toBe('192.0.2.98');
        expect(fake.limited).toBe(1);
        // Still limited after its retries: said so.
        fake.limitNext = 10;
        expect(en(await cl.set({ domain, type: 'A', value: '192.0.2.97' }).catch((e: unknown) => e))).toMatch(/rate limited by the provider/);
        fake.limitNext = 0;
      } else {
        expect(en(await cl.set({ domain, type: 'A', value: '192.0.2.98' }).catch((e: unknown) => e))).toMatch(c.limit);
        expect(fake.limited).toBe(1);
      }
      fake.limited = 0;

      if (c.noZone) {
        expect(en(await cl.set({ domain: c.noZone.domain, type: 'A', value: '192.0.2.96' }).catch((e: unknown) => e))).toMatch(c.noZone.text);
      }
      expect(fake.rejected, fake.lastReject).toBe(0);
    });
  }

  it('rainyun: a task with its domain id writes there without looking the domain up', async () => {
    const fake = fakes.get('rainyun')!;
    const cl = await (await service()).client('rainyun', { secret: 'rainyun-api-key', id: RAINYUN_DOMAIN_ID }, { timeoutMs: 5000 });
    const before = fake.requests;
    expect(await cl.set({ domain: 'byid.example.com', type: 'A', value: '192.0.2.50' })).toBe('created');
    expect(fake.find('byid.example.com', 'A')?.value).toBe('192.0.2.50');
    expect(await cl.remove({ domain: 'byid.example.com', type: 'A' })).toBe(true);
    // List, create; list, delete: no domain list asked for.
    expect(fake.requests - before).toBe(4);
    expect(fake.rejected, fake.lastReject).toBe(0);
  });
});
