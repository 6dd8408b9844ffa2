/**
 * Pure helpers of the DDNS screens: the form's state (multi-line fields as text, numbers as typed),
 * conversion to and from the contracts' task, presets, validation messages of spec section 5.
 */
import {
  DDNS_INTERVAL_PRESETS,
  DDNS_PROVIDER_INFO,
  DNS_REGIONS,
  EMPTY_DDNS_CREDENTIALS,
  MESSAGES,
  ZDdnsConfigure,
  ZDdnsTask,
  type DdnsCallback,
  type DdnsConfigure,
  type DdnsCredentials,
  type DdnsIpSource,
  type DdnsProviderListing,
  type DdnsProviderName,
  type DdnsProxy,
  type DdnsSyncStatus,
  type DdnsTask,
  type DdnsWebhook,
  type Lang,
} from '@lucky/contracts';
import { lang } from '../../i18n';
import { firstProblem, type ProblemWording } from '../../kit/form/problems';
import { joinLines, toNumber, type Num } from '../../kit/form/values';
import { lines } from '../../lib/helpers';
import { applyPreset, isMask, webhookToBody, webhookToForm as webhookToFormOf, type WebhookFormOf } from '../../kit/webhook/request';
import { ddnsTextIn, type DdnsText, type DdnsTextId } from './i18n';

export interface SourceForm {
  type: DdnsIpSource['type'];
  urls: string;
  regex: string;
  interface: string;
  rule: string;
  command: string;
  commandTimeout: Num;
  odhcpdFile: string;
  odhcpdHost: string;
}

export type WebhookForm = WebhookFormOf<DdnsWebhook>;

export interface CallbackForm {
  preset: DdnsCallback['preset'];
  url: string;
  method: DdnsCallback['method'];
  headers: string;
  body: string;
  successCheck: { enable: boolean; text: string };
}

export interface TaskForm {
  name: string;
  enable: boolean;
  mode: DdnsTask['mode'];
  recordType: DdnsTask['recordType'];
  provider: DdnsProviderName;
  credentials: DdnsCredentials;
  domains: string;
  ipv4: SourceForm;
  ipv6: SourceForm;
  resolverCheck: { enable: boolean; servers: string };
  ttl: Num;
  forceSync: Num;
  webhook: WebhookForm;
  proxy: DdnsProxy;
  httpTimeout: Num;
  skipVerify: boolean;
  callback: CallbackForm;
}


const sourceToForm = (s: DdnsIpSource): SourceForm => ({ ...s, urls: joinLines(s.urls) });
export const webhookToForm = (w: DdnsWebhook): WebhookForm => webhookToFormOf(w);
const callbackToForm = (c: DdnsCallback): CallbackForm => ({ ...c, headers: joinLines(c.headers), successCheck: { ...c.successCheck } });

export function taskToForm(t: DdnsTask): TaskForm {
  return {
    name: t.name,
    enable: t.enable,
    mode: t.mode,
    recordType: t.recordType,
    provider: t.provider,
    credentials: { ...t.credentials },
    domains: joinLines(t.domains),
    ipv4: sourceToForm(t.ipv4),
    ipv6: sourceToForm(t.ipv6),
    resolverCheck: { enable: t.resolverCheck.enable, servers: joinLines(t.resolverCheck.servers) },
    ttl: t.ttl,
    forceSync: t.forceSync,
    webhook: webhookToForm(t.webhook),
    proxy: { ...t.proxy },
    httpTimeout: t.httpTimeout,
    skipVerify: t.skipVerify,
    callback: callbackToForm(t.callback),
  };
}

/** A new task: the contracts' defaults (easy mode, URL sources, IPv4). */
export function emptyForm(provider: DdnsProviderName = 'cloudflare'): TaskForm {
  const t = ZDdnsTask.safeParse({ name: 'x', provider, domains: ['example.com'] });
  // The defaults of every field come from the schema itself; the two filled ones are cleared again.
  const base = t.success ? t.data : (ZDdnsTask.parse({ name: 'x', provider: 'callback', domains: ['example.com'], callback: { url: 'http://x' } }) as DdnsTask);
  return { ...taskToForm({ ...base, provider }), name: '', domains: '', callback: callbackToForm({ ...base.callback, url: '' }) };
}

const sourceToTask = (s: SourceForm): DdnsIpSource => ({
  ...s,
  urls: lines(s.urls),
  regex: s.regex.trim(),
  interface: s.interface.trim(),
  rule: s.rule.trim(),
  commandTimeout: toNumber(s.commandTimeout),
  odhcpdHost: s.odhcpdHost.trim(),
});
const proxyToTask = (p: DdnsProxy): DdnsProxy => ({ ...p, address: p.address.trim() });
export const webhookToTask = (w: WebhookForm): DdnsWebhook => webhookToBody<DdnsWebhook>(w);

/** The task as the API takes it; numbers stay NaN when not numbers so validation names the field. */
export function formToTask(f: TaskForm): DdnsTask {
  return {
    name: f.name.trim(),
    enable: f.enable,
    mode: f.mode,
    recordType: f.recordType,
    provider: f.provider,
    credentials: { ...f.credentials, id: f.credentials.id.trim(), id2: f.credentials.id2.trim(), id3: f.credentials.id3.trim(), server: f.credentials.server.trim() },
    domains: lines(f.domains),
    ipv4: sourceToTask(f.ipv4),
    ipv6: sourceToTask(f.ipv6),
    resolverCheck: { enable: f.resolverCheck.enable, servers: lines(f.resolverCheck.servers) },
    ttl: toNumber(f.ttl),
    forceSync: toNumber(f.forceSync),
    webhook: webhookToTask(f.webhook),
    proxy: proxyToTask(f.proxy),
    httpTimeout: toNumber(f.httpTimeout),
    skipVerify: f.skipVerify,
    callback: { ...f.callback, url: f.callback.url.trim(), headers: lines(f.callback.headers), successCheck: { ...f.callback.successCheck } },
  };
}

/** The address families a record type needs. */
export function families(recordType: DdnsTask['recordType']): ('ipv4' | 'ipv6')[] {
  return recordType === 'both' ? ['ipv4', 'ipv6'] : recordType === 'AAAA' ? ['ipv6'] : ['ipv4'];
}

export { applyPreset, isMask };

/**
 * Switching provider: credentials of another provider mean nothing here (and a stored secret's mask
 * would keep the old provider's secret), so they are cleared; going back to the saved provider brings
 * the saved ones back. Record types the new provider cannot do fall back to A.
 */
export function switchProvider(f: TaskForm, next: DdnsProviderName, saved: DdnsTask | null): TaskForm {
  const credentials: DdnsCredentials =
    saved && saved.provider === next ? { ...saved.credentials } : { ...EMPTY_DDNS_CREDENTIALS, algorithm: f.credentials.algorithm };
  const recordType = DDNS_PROVIDER_INFO[next].ipv6 ? f.recordType : 'A';
  return { ...f, provider: next, credentials, recordType };
}

/** Colours of the nine statuses: green written, red failed, teal nothing to do, grey/orange not running. */
export const STATUS_COLOR: Record<DdnsSyncStatus, string> = {
  updateSucceeded: 'green',
  updateFailed: 'red',
  ipSameAsRecord: 'teal',
  providerRecordSame: 'teal',
  dnsRecordSame: 'teal',
  ipUnchanged: 'cyan',
  syncStopped: 'gray',
  syncPaused: 'orange',
  waitingForSync: 'blue',
};

/** Interval presets with the text key and value to show; `null` is custom. */
export function intervalPresetLabel(seconds: number): { id: DdnsTextId; n: number } {
  if (seconds % 3600 === 0) return { id: 'intervalHours', n: seconds / 3600 };
  if (seconds % 60 === 0) return { id: 'intervalMinutes', n: seconds / 60 };
  return { id: 'intervalSeconds', n: seconds };
}
export const isIntervalPreset = (n: number) => (DDNS_INTERVAL_PRESETS as readonly number[]).includes(n);

export interface SettingsForm {
  interval: Num;
  /** A preset's seconds as text, or 'custom'. */
  intervalChoice: string;
  firstDelay: Num;
  concurrency: Num;
  webhook: WebhookForm;
}
export function configureToForm(c: DdnsConfigure): SettingsForm {
  return {
    interval: c.interval,
    intervalChoice: isIntervalPreset(c.interval) ? String(c.interval) : 'custom',
    firstDelay: c.firstDelay,
    concurrency: c.concurrency,
    webhook: webhookToForm(c.webhook),
  };
}
export function formToConfigure(f: SettingsForm): DdnsConfigure {
  return {
    interval: f.intervalChoice === 'custom' ? toNumber(f.interval) : Number(f.intervalChoice),
    firstDelay: toNumber(f.firstDelay),
    concurrency: toNumber(f.concurrency),
    webhook: webhookToTask(f.webhook),
  };
}

/** Field labels by path (numbers dropped), for spec section 5 messages. */
const FIELD_LABELS: Record<string, DdnsTextId> = {
  name: 'field.name',
  domains: 'field.domains',
  recordType: 'field.recordType',
  'ipv4.urls': 'field.urls',
  'ipv6.urls': 'field.urls',
  'ipv4.regex': 'field.regex',
  'ipv6.regex': 'field.regex',
  'ipv4.interface': 'field.interface',
  'ipv6.interface': 'field.interface',
  'ipv4.rule': 'field.rule',
  'ipv6.rule': 'field.rule',
  'ipv4.command': 'field.command',
  'ipv6.command': 'field.command',
  'ipv4.commandTimeout': 'field.commandTimeout',
  'ipv6.commandTimeout': 'field.commandTimeout',
  'ipv4.odhcpdFile': 'field.odhcpdFile',
  'ipv6.odhcpdFile': 'field.odhcpdFile',
  'ipv4.odhcpdHost': 'field.odhcpdHost',
  'ipv6.odhcpdHost': 'field.odhcpdHost',
  'ipv4.type': 'field.ipType',
  'ipv6.type': 'field.ipType',
  'proxy.address': 'field.proxyAddress',
  'webhook.url': 'field.webhookUrl',
  'webhook.method': 'field.webhookMethod',
  'webhook.proxy.address': 'field.webhookProxyAddress',
  'webhook.successCheck.text': 'field.webhookSuccessText',
  'webhook.headers': 'field.webhookHeaders',
  'webhook.body': 'field.webhookBody',
  'callback.url': 'field.callbackUrl',
  'callback.method': 'field.callbackMethod',
  'callback.successCheck.text': 'field.callbackSuccessText',
  'callback.headers': 'field.callbackHeaders',
  'resolverCheck.servers': 'field.resolverServers',
  ttl: 'field.ttl',
  forceSync: 'field.forceSync',
  httpTimeout: 'field.httpTimeout',
  interval: 'field.interval',
  firstDelay: 'field.firstDelay',
  concurrency: 'field.concurrency',
};

/**
 * The label of a field for messages. Credentials use the provider's own label (spec: "each provider's
 * credentials cannot be empty"), from its description.
 */
export function fieldLabel(path: readonly PropertyKey[], provider: DdnsProviderName, text: DdnsText, inLang: Lang = lang): string {
  const names = path.filter((p): p is string => typeof p === 'string');
  // The global settings' webhook is checked on its own: its paths start at the webhook.
  const key = names.join('.');
  if (names[0] === 'credentials') {
    const field = DDNS_PROVIDER_INFO[provider].fields.find((f) => f.key === names[1]);
    if (field) return MESSAGES[inLang][field.label];
  }
  const id = FIELD_LABELS[key] ?? FIELD_LABELS[`webhook.${key}`];
  return id ? text(id) : key;
}

/** A provider's name in the page's language. */
export const providerLabel = (name: DdnsProviderName, inLang: Lang = lang): string => MESSAGES[inLang][DDNS_PROVIDER_INFO[name].label];

/** The provider select's options: one group per region (mainland China, international, protocols), in the table's order. */
export function providerOptions(providers: readonly DdnsProviderListing[]): Array<{ group: string; items: Array<{ value: string; label: string }> }> {
  return DNS_REGIONS.map((region) => {
    const inRegion = providers.filter((p) => p.region === region);
    return { group: inRegion[0]?.regionLabel ?? '', items: inRegion.map((p) => ({ value: p.name, label: p.label })) };
  }).filter((g) => g.items.length > 0);
}

/** Messages name the field (spec section 5); range messages name it themselves. */
function wording(provider: DdnsProviderName, inLang: Lang): ProblemWording {
  const text = ddnsTextIn(inLang);
  return {
    lang: inLang,
    text,
    label: (path) => fieldLabel(path, provider, text, inLang),
    own: (issue, at) => (/Range$/.test(issue.message) ? at.detail : undefined),
  };
}

// One message at a time, as the form always said it.
export const checkTask = (f: TaskForm, inLang: Lang = lang) => firstProblem(ZDdnsTask, formToTask(f), wording(f.provider, inLang));
export const checkSettings = (f: SettingsForm, inLang: Lang = lang) => firstProblem(ZDdnsConfigure, formToConfigure(f), wording('callback', inLang));

/** Fields easy mode does not show: a problem there switches the form to customized mode. */
/** The form's HTTP timeout when it is valid (3-60 s), else the default: a test should run anyway. */
export const testTimeout = (seconds: number) => (Number.isInteger(seconds) && seconds >= 3 && seconds <= 60 ? seconds : 10);

export function hiddenInEasyMode(path: string): boolean {
  return /^(resolverCheck|ttl|forceSync|proxy|httpTimeout|skipVerify|webhook\.(?!enable|url|preset)|callback\.(headers|body|successCheck)|ipv[46]\.(regex|commandTimeout))/.test(path);
}
