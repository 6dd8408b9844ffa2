/**
 * Publish: a LAN service made reachable from the internet in one step. A published service is a
 * LAN target, the public names it answers to, and how it is reached from outside; Lucky creates (and
 * deletes) the parts in their own modules: a DDNS task for the names, a web rule with automatic
 * HTTPS that proxies to the target, and the router forward (direct) or a STUN rule that holds a
 * public port open through the NAT (STUN). Its view is a card of checks, each link
 * of the chain looked at continuously and explained.
 */
import { z } from 'zod';
import { isAcmeDomain } from './acme.js';
import { msgKey } from './i18n.js';
import { ZBackendUrl } from './web.js';
import { ok } from './envelope.js';
import { route } from './route.js';
import { moduleContract, ruleView, ZRuleKey, ZRuleParams } from './rules.js';
import { ZStunServers } from './stun.js';

/** A name a certificate is ordered for: a full DNS name, no wildcard (one service, its own names). */
export const ZPublishName = z
  .string()
  .trim()
  .toLowerCase()
  .refine((s) => isAcmeDomain(s) && !s.startsWith('*.'), { error: msgKey('publishBadName') });

const ZPort = z.number().int().min(1, { error: msgKey('invalidPort') }).max(65535, { error: msgKey('invalidPort') });

export const ZPublishRule = z.object({
  name: z.string().trim().min(1, { error: msgKey('cannotBeEmpty') }).max(64),
  enable: z.boolean().default(true),
  /** The LAN service: `http://192.168.1.5:8123`, an https:// one too (its certificate is not checked: a LAN device's own). */
  target: ZBackendUrl,
  /** The public names, under the zone of the DDNS task. */
  names: z.array(ZPublishName).min(1, { error: msgKey('cannotBeEmpty') }).max(16),
  /**
   * `direct`: the router forwards 443 and 80 to this device. `stun`: behind a NAT that forwards
   * nothing the user can choose (a carrier's full-cone NAT), a STUN rule holds a public port open and
   * the service is reached on that port (the URL carries it; the certificate comes by DNS-01).
   */
  reach: z.enum(['direct', 'stun']).default('direct'),
  /**
   * The DDNS task whose provider account holds the names' zone: the service gets a task of its own
   * for its names with that task's provider, credentials and address source.
   */
  dnsTask: ZRuleKey,
  /** The ports the web rule listens on here: HTTPS and (direct) its plain-HTTP companion (redirect, ACME HTTP-01). */
  httpsPort: ZPort.default(443),
  httpPort: ZPort.default(80),
  /**
   * Direct: ask the router for the forwards (UPnP IGD, else NAT-PMP); off: the user forwards them.
   * STUN: the STUN rule also asks the router (UPnP) to forward its public port, for a home router
   * that filters what the carrier's NAT lets in.
   */
  mapRouter: z.boolean().default(true),
  /** Direct: the public ports (what the router forwards from): 443 and 80 unless the ISP blocks them. */
  publicHttpsPort: ZPort.default(443),
  publicHttpPort: ZPort.default(80),
  /** UPnP: the router's device description URL; empty: found by SSDP. */
  upnpUrl: z.string().trim().max(1024).regex(/^$|^http:\/\/\S+$/i, { error: msgKey('invalidUrl') }).default(''),
  /** STUN: the servers its STUN rule asks; empty: the STUN module's list. */
  stunServers: ZStunServers.default([]),
  note: z.string().max(512).default(''),
});
export type PublishRule = z.infer<typeof ZPublishRule>;
export type PublishRuleInput = z.input<typeof ZPublishRule>;

/** The card's links: `router` in direct mode, `stun` in STUN mode. */
export const PUBLISH_CHECKS = ['dns', 'certificate', 'web', 'target', 'router', 'stun'] as const;
export const ZPublishCheckId = z.enum(PUBLISH_CHECKS);
export type PublishCheckId = z.infer<typeof ZPublishCheckId>;

/** One link of the chain, as last looked at. */
export const ZPublishCheck = z.object({
  id: ZPublishCheckId,
  state: z.enum(['ok', 'failed', 'pending']),
  /** What was found, in the reader's language. */
  message: z.string(),
  /** What to do about it ('' when nothing is to be done), in the reader's language. */
  hint: z.string(),
  /** When it was last looked at (ms); 0 before the first look. */
  checked: z.number(),
});
export type PublishCheck = z.infer<typeof ZPublishCheck>;

/** The parts made for the service in their own modules (their keys), null for one not made (yet). */
export const ZPublishParts = z.object({
  ddns: ZRuleKey.nullable(),
  web: ZRuleKey.nullable(),
  certificate: z.string().nullable(),
  /** STUN mode: the STUN rule. */
  stun: ZRuleKey.nullable(),
});

export const ZPublishRuleView = ruleView(ZPublishRule, {
  /** The address to open: `https://name` (with the public port when not 443). */
  url: z.string(),
  /** The public address the names should resolve to ('' before it is known). */
  publicAddress: z.string(),
  /** The public HTTPS port: the configured one (direct), the one the STUN rule holds (STUN; null before it is known). */
  publicPort: z.number().nullable(),
  parts: ZPublishParts,
  checks: z.array(ZPublishCheck),
});
export type PublishRuleView = z.infer<typeof ZPublishRuleView>;

export const ZPublishConfigure = z.object({
  /** Seconds between two looks at every link (and at the router's public address). */
  checkInterval: z.number().int().min(5).max(3600).default(60),
});
export type PublishConfigure = z.infer<typeof ZPublishConfigure>;

export const publishContract = moduleContract(
  'publish',
  { input: ZPublishRule, view: ZPublishRuleView, configure: ZPublishConfigure },
  {
    check: route({
      method: 'POST',
      path: '/api/publish/rules/:key/check',
      summary: "Look at every link of a running published service now; answers when done (the card's checks are in its view)",
      module: 'publish',
      params: ZRuleParams,
      response: ok({ msg: z.string() }),
    }),
  },
);
export const publishRoutes = publishContract.routes;
