/**
 * Certificates (`acme`): named TLS certificates kept in the daemon's certificate store, from three
 * sources: PEM text pasted, files on disk, or issued and renewed by an ACME CA (RFC 8555). The rule's
 * name is the certificate's name in the store, by which web services and other TLS rules pick it.
 */
import { z } from 'zod';
import { ok } from './envelope.js';
import { checkWebhook, ZLines, ZWebhook } from './http.js';
import { msgKey } from './i18n.js';
import { isIP, parseHostPort, ZListenHost } from './net.js';
import { route } from './route.js';
import { moduleContract, ruleView, ZRuleParams } from './rules.js';
import { secret } from './secrets.js';

/** Directory URLs of the preset CAs. */
export const ACME_DIRECTORIES = {
  letsencrypt: 'https://acme-v02.api.letsencrypt.org/directory',
  letsencryptStaging: 'https://acme-staging-v02.api.letsencrypt.org/directory',
  zerossl: 'https://acme.zerossl.com/v2/DV90',
  google: 'https://dv.acme-v02.api.pki.goog/directory',
} as const;
export const ZAcmeCa = z.enum(['letsencrypt', 'letsencryptStaging', 'zerossl', 'google', 'custom']);
export type AcmeCa = z.infer<typeof ZAcmeCa>;
/** CAs that need External Account Binding (a key id and HMAC key from the CA's account page). */
export const ACME_EAB_REQUIRED: readonly AcmeCa[] = ['zerossl', 'google'];

/** The certificate store's name rule: what web rules pick the certificate by. */
export const ACME_NAME_RE = /^[A-Za-z0-9._-]{1,64}$/;

const LABEL = '[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?';
const ACME_DOMAIN_RE = new RegExp(`^(\\*\\.)?(${LABEL}\\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$`);
/** A DNS name a CA can issue for: at least two labels, letters/digits/hyphens, `*.` in front for a wildcard. */
export function isAcmeDomain(s: string): boolean {
  return s.length <= 253 && ACME_DOMAIN_RE.test(s);
}
export const ZAcmeDomain = z
  .string()
  .trim()
  .toLowerCase()
  .refine(isAcmeDomain, { error: msgKey('acmeBadDomain') });

export const ZAcmeKeyType = z.enum(['ec256', 'rsa2048', 'rsa4096']);
export type AcmeKeyType = z.infer<typeof ZAcmeKeyType>;
export const ZAcmeChallenge = z.enum(['http-01', 'dns-01']);

const ZPem = z.string().max(256 * 1024);

export const ZAcmeRuleFields = z.object({
  /** The certificate's name in the store. */
  name: z.string().trim().regex(ACME_NAME_RE, { error: msgKey('certBadName') }),
  enable: z.boolean().default(true),
  source: z.enum(['pem', 'file', 'acme']).default('acme'),
  /** `pem`: the certificate (chain) and its private key as text (not `key`: the rule view's id is `key`). */
  cert: ZPem.default(''),
  privateKey: secret(ZPem).default(''),
  /** `file`: paths of the certificate and key files (read again when they change). */
  certPath: z.string().trim().max(4096).default(''),
  keyPath: z.string().trim().max(4096).default(''),
  /** `acme`: the CA. */
  ca: ZAcmeCa.default('letsencrypt'),
  /** The directory URL when `ca` is `custom`. */
  directoryUrl: z.string().trim().max(2048).default(''),
  /** A root CA (PEM) to trust for the directory's HTTPS: private CAs (step-ca, pebble). */
  caRoot: ZPem.default(''),
  email: z.string().trim().max(254).default(''),
  /** External Account Binding: key id and the base64url HMAC key. */
  eabKid: z.string().trim().max(256).default(''),
  eabHmac: secret(z.string().trim().max(1024)).default(''),
  /** An existing account key (PEM) to use; empty: one is made and kept. */
  accountKey: secret(ZPem).default(''),
  domains: z.array(ZAcmeDomain).max(100).default([]),
  keyType: ZAcmeKeyType.default('ec256'),
  challenge: ZAcmeChallenge.default('http-01'),
  /** HTTP-01: where the temporary listener answers when no web rule serves the name. */
  httpAddress: ZListenHost.default(''),
  httpPort: z.number().int().min(1, { error: msgKey('invalidPort') }).max(65535, { error: msgKey('invalidPort') }).default(80),
  /** DNS-01: the DDNS task whose provider writes the TXT records. */
  dnsTask: z.string().trim().max(64).default(''),
  /** DNS-01: seconds to wait after writing the records before asking the CA to check. */
  dnsWait: z.number().int().min(0).max(3600).default(0),
  /** DNS-01: before asking the CA, wait until the zone's authoritative servers answer the record. */
  dnsCheck: z.boolean().default(true),
  /**
   * DNS-01: the servers to ask instead, `ip` or `ip:port` one a line (split-horizon DNS); empty: the
   * zone's NS records (an RFC 2136 task: its server).
   */
  dnsServers: ZLines.default([]),
  /** DNS-01: how long to wait for them (s); then the order fails naming the servers without the record. */
  dnsCheckTimeout: z.number().int().min(5).max(3600).default(300),
  renewBeforeDays: z.number().int().min(1).max(365).default(30),
  note: z.string().max(512).default(''),
});

export const ZAcmeRule = ZAcmeRuleFields.superRefine((r, ctx) => {
  const need = (path: string, message = msgKey('cannotBeEmpty')) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (r.source === 'pem') {
    if (!r.cert.trim()) need('cert');
    if (!r.privateKey.trim()) need('privateKey');
  } else if (r.source === 'file') {
    if (!r.certPath) need('certPath');
    if (!r.keyPath) need('keyPath');
  } else {
    if (r.domains.length === 0) need('domains');
    if (new Set(r.domains).size !== r.domains.length) need('domains', msgKey('acmeDuplicateDomain'));
    if (r.challenge === 'http-01') {
      r.domains.forEach((d, i) => {
        if (d.startsWith('*.')) ctx.addIssue({ code: 'custom', path: ['domains', i], message: msgKey('acmeWildcardNeedsDns') });
      });
    }
    if (r.challenge === 'dns-01' && !r.dnsTask) need('dnsTask');
    if (r.challenge === 'dns-01') {
      r.dnsServers.forEach((s, i) => {
        const hp = parseHostPort(s, 53);
        if (!hp || !isIP(hp.host)) ctx.addIssue({ code: 'custom', path: ['dnsServers', i], message: msgKey('invalidIp') });
      });
    }
    if (r.ca === 'custom' && !/^https:\/\/[^\s/]+/.test(r.directoryUrl)) need('directoryUrl', msgKey('acmeBadDirectory'));
    if (ACME_EAB_REQUIRED.includes(r.ca)) {
      if (!r.eabKid) need('eabKid');
      if (!r.eabHmac) need('eabHmac');
    }
    if ((r.eabKid === '') !== (r.eabHmac === '')) need(r.eabKid ? 'eabHmac' : 'eabKid');
    if (r.email && !/^[^\s@]+@[^\s@]+$/.test(r.email)) need('email', msgKey('acmeBadEmail'));
  }
});
export type AcmeRule = z.infer<typeof ZAcmeRule>;
export type AcmeRuleInput = z.input<typeof ZAcmeRule>;

/** What the store holds under the rule's name now. */
export const ZAcmeCertState = z.object({
  names: z.array(z.string()),
  notBefore: z.number(),
  notAfter: z.number(),
  issuer: z.string(),
  fingerprint: z.string(),
});

export const ZAcmeRuleView = ruleView(ZAcmeRuleFields, {
  certificate: ZAcmeCertState.nullable(),
  /** When the next renewal is due (ms since the epoch); null for certificates not issued here. */
  renewAt: z.number().nullable(),
});
export type AcmeRuleView = z.infer<typeof ZAcmeRuleView>;

/** What the module's webhook is called for. */
export const ZAcmeEvent = z.enum(['expiring', 'failed', 'issued']);
export type AcmeEvent = z.infer<typeof ZAcmeEvent>;

const ZAcmeWebhook = ZWebhook.superRefine((w, ctx) => checkWebhook(w, [], ctx));

/**
 * Where automatic certificates (a web rule's automatic HTTPS, a published service) are ordered: one
 * CA and account for all of them, as a certificate rule would name them.
 */
export const ZAcmeAuto = ZAcmeRuleFields.pick({ ca: true, directoryUrl: true, caRoot: true, email: true, eabKid: true, eabHmac: true, keyType: true, renewBeforeDays: true }).superRefine(
  (a, ctx) => {
    const need = (path: string, message = msgKey('cannotBeEmpty')) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (a.ca === 'custom' && !/^https:\/\/[^\s/]+/.test(a.directoryUrl)) need('directoryUrl', msgKey('acmeBadDirectory'));
    if (ACME_EAB_REQUIRED.includes(a.ca)) {
      if (!a.eabKid) need('eabKid');
      if (!a.eabHmac) need('eabHmac');
    }
    if (a.email && !/^[^\s@]+@[^\s@]+$/.test(a.email)) need('email', msgKey('acmeBadEmail'));
  },
);
export type AcmeAuto = z.infer<typeof ZAcmeAuto>;

export const ZAcmeConfigure = z.object({
  /** How often running rules look at their expiry (hours). */
  checkHours: z.number().int().min(1).max(168).default(12),
  /**
   * Days before expiry a certificate that is still not renewed is announced (`expiring`, once a
   * day); never more than a quarter of its lifetime, so short-lived certificates renewed on time stay quiet.
   */
  warnDays: z.number().int().min(1).max(90).default(7),
  /** Called for the chosen events of every certificate; values `#{name}` `#{domains}` `#{event}` `#{notAfter}` `#{daysLeft}` `#{error}`. */
  webhook: ZAcmeWebhook.default(ZWebhook.parse({})),
  webhookEvents: z.array(ZAcmeEvent).max(3).default(['expiring', 'failed']),
  auto: ZAcmeAuto.prefault({}),
});
export type AcmeConfigure = z.infer<typeof ZAcmeConfigure>;

/** A certificate and its key as a file: the chain, the key, both in one PEM, or PKCS#12 for Windows. */
export const ZAcmeExportFormat = z.enum(['fullchain', 'key', 'bundle', 'pfx']);
export type AcmeExportFormat = z.infer<typeof ZAcmeExportFormat>;
export const ZAcmeExport = z
  .object({
    format: ZAcmeExportFormat,
    /** The PFX file's password (its private key is encrypted with it). */
    password: z.string().max(128).default(''),
  })
  .superRefine((e, ctx) => {
    if (e.format === 'pfx' && e.password === '') ctx.addIssue({ code: 'custom', path: ['password'], message: msgKey('acmePfxPassword') });
  });

export const ZAcmeWebhookTestRequest = z.object({ webhook: ZAcmeWebhook });

export const ZStoredCertificate = ZAcmeCertState.extend({ name: z.string(), subject: z.string(), created: z.number(), updated: z.number() });

export const acmeContract = moduleContract(
  'acme',
  { input: ZAcmeRule, view: ZAcmeRuleView, configure: ZAcmeConfigure },
  {
    certificates: route({
      method: 'GET',
      path: '/api/acme/certificates',
      summary: 'The certificates of the store (without keys), to pick one by name in TLS rules',
      module: 'acme',
      response: ok({ list: z.array(ZStoredCertificate) }),
    }),
    export: route({
      method: 'POST',
      path: '/api/acme/rules/:key/export',
      summary: "The rule's certificate and key as a file (chain, key, both in one PEM, or a PFX under a password); logged",
      module: 'acme',
      params: ZRuleParams,
      body: ZAcmeExport,
      raw: 'download',
      response: z.unknown(),
    }),
    webhookTest: route({
      method: 'POST',
      path: '/api/acme/webhooktest',
      summary: 'Call a webhook with sample values',
      module: 'acme',
      body: ZAcmeWebhookTestRequest,
      response: ok({ success: z.boolean(), status: z.number(), body: z.string(), msg: z.string() }),
    }),
    choices: route({
      method: 'GET',
      path: '/api/acme/choices',
      summary: 'What the settings can refer to: webhook presets',
      module: 'acme',
      response: ok({ webhookPresets: z.record(z.string(), ZWebhook.partial()) }),
    }),
    renew: route({
      method: 'POST',
      path: '/api/acme/rules/:key/renew',
      summary: 'Order (ACME) or read again (PEM, files) the rule\'s certificate now, whatever its expiry; answers when done',
      module: 'acme',
      params: ZRuleParams,
      response: ok({ msg: z.string() }),
    }),
  },
);
export const acmeRoutes = acmeContract.routes;
