/**
 * What is wrong with a web rule, a sub rule or a domain replace, one message at a time, naming the
 * field (spec section 5: "domain cannot be empty"); where a problem sits (tab, fold).
 */
import { autoCertNames, autoCertOf, renderMsg, ZWebDomainReplace, ZWebRule, ZWebSubRule, type Lang, type Msg, type WebRule } from '@lucky/contracts';
import { lang } from '../../i18n';
import { firstProblem, isEmptyIssue, type FormProblem, type Schema } from '../../kit/form/problems';
import { formToRule, formToSubRule, keepsPassword, type AccessForm, type RuleForm, type SubRuleForm, type UserForm } from './form';
import { webTextIn, type WebText } from './i18n';

/** Field labels by path with the numbers dropped; sub rule paths without their `subRules.N.` prefix. */
const FIELD_LABELS: Record<string, Parameters<WebText>[0]> = {
  name: 'field.name',
  port: 'field.port',
  address: 'field.address',
  'certs.cert': 'field.cert',
  'certs.key': 'field.key',
  'certs.domains': 'field.certDomains',
  'certs.dnsTask': 'field.certDnsTask',
  httpRedirectPort: 'field.httpRedirectPort',
  domains: 'field.domains',
  'service.targets': 'field.targets',
  'service.target': 'field.target',
  'service.root': 'field.root',
  'service.index': 'field.index',
  'service.status': 'field.status',
  'service.contentType': 'field.contentType',
  'service.requestHeaders': 'field.requestHeaders',
  'service.responseHeaders': 'field.responseHeaders',
  'service.healthCheck.path': 'field.healthPath',
  'service.healthCheck.intervalSeconds': 'field.healthInterval',
  'service.healthCheck.timeoutSeconds': 'field.healthTimeout',
  'service.maxFails': 'field.maxFails',
  'service.failTimeoutSeconds': 'field.failTimeout',
  'service.timeoutSeconds': 'field.proxyTimeout',
  'service.websocketIdleSeconds': 'field.websocketIdle',
  'basicAuth.users.user': 'field.user',
  'basicAuth.users.password': 'field.password',
  'basicAuth.realm': 'field.realm',
  'portal.userHeader': 'field.portalHeader',
  'forwardAuth.url': 'field.forwardAuthUrl',
  'forwardAuth.copyHeaders': 'field.forwardAuthHeaders',
  'forwardAuth.timeoutSeconds': 'field.forwardAuthTimeout',
  'ipFilter.list': 'field.ipList',
  'uaFilter.list': 'field.uaList',
  'cache.maxBytes': 'field.cacheMax',
  'cache.maxEntryBytes': 'field.cacheEntryMax',
  'cache.ttlSeconds': 'field.cacheTtl',
  'cors.origins': 'field.corsOrigins',
  'cors.methods': 'field.corsMethods',
  'cors.headers': 'field.corsHeaders',
  'cors.maxAgeSeconds': 'field.corsMaxAge',
  'robots.text': 'field.robots',
  'limits.rate': 'field.limitRate',
  'limits.burst': 'field.limitBurst',
  'limits.connections': 'field.limitConnections',
  'limits.maxBodyBytes': 'field.limitMaxBody',
  trustedProxies: 'field.trustedProxies',
  clientIpHeaders: 'field.clientIpHeaders',
  'accessLog.capacity': 'field.accessLogCapacity',
  note: 'field.note',
  from: 'field.from',
  to: 'field.to',
  accessLogShow: 'field.accessLogShow',
  servingThreads: 'field.servingThreads',
  mainThreadOnly: 'field.mainThreadOnly',
};


/** `defaultService` is the rule's `service`; a sub rule's fields are named inside "sub rule N". */
export function fieldLabel(path: readonly PropertyKey[], text: WebText): string {
  let p = [...path];
  let prefix = '';
  if (p[0] === 'subRules' && typeof p[1] === 'number') {
    prefix = text('field.subRule', { n: p[1] + 1 }) + ' · ';
    p = p.slice(2);
  }
  if (p[0] === 'defaultService') p = ['service', ...p.slice(1)];
  const names = p.filter((x): x is string => typeof x === 'string');
  const id = FIELD_LABELS[names.join('.')];
  return prefix + (id ? text(id) : names.join('.'));
}

/**
 * The first problem of `value`, one at a time: "X cannot be empty" for empty fields, numeric bounds
 * in words ("访问日志容量不能大于 102400"), the contracts' own text otherwise, the line for list entries.
 */
export function webProblem(schema: Schema, value: unknown, inLang: Lang = lang): FormProblem[] {
  const text = webTextIn(inLang);
  return firstProblem(schema, value, {
    lang: inLang,
    text,
    label: (path) => fieldLabel(path, text),
    // The entry inside a list field, not the sub rule's own index.
    row: (path) => (path[0] === 'subRules' ? path.slice(2) : path).find((x): x is number => typeof x === 'number'),
    own: (issue, at) => {
      const bound = issue.code === 'too_big' ? issue.maximum : issue.code === 'too_small' ? issue.minimum : undefined;
      if (bound === undefined || issue.origin !== 'number' || issue.message.startsWith('@msg:') || isEmptyIssue(issue, at.row)) return undefined;
      const msg = text(issue.code === 'too_big' ? 'err.max' : 'err.min', { field: at.label, n: Number(bound) });
      return at.row !== undefined ? text('err.row', { field: at.label, n: at.row + 1, detail: msg }) : msg;
    },
  });
}

/** A new user without a password cannot be saved (stored users keep theirs when left blank). */
export function missingPassword(users: readonly UserForm[]): string | null {
  return users.find((u) => !keepsPassword(u) && u.user.trim() !== '' && u.password === '')?.user.trim() ?? null;
}

/** A new user's missing password, which the daemon would refuse, as a problem of the form. */
function passwordProblem(users: readonly UserForm[], prefix: string, inLang: Lang): FormProblem[] {
  const user = missingPassword(users);
  if (user === null) return [];
  const i = users.findIndex((u) => u.user.trim() === user && !keepsPassword(u) && u.password === '');
  const message = webTextIn(inLang)('err.password', { user });
  const path = `${prefix}basicAuth.users.${i}.password`;
  return [{ path, field: path.replace(/\.\d+(?=\.|$)/g, ''), message, inline: message, summary: message }];
}

/** A problem at `path` in the daemon's own words (a check its schema cannot make). */
function daemonProblem(path: string, msg: Msg, inLang: Lang): FormProblem[] {
  const message = renderMsg(inLang, msg);
  return [{ path, field: path.replace(/\.\d+(?=\.|$)/g, ''), message, inline: message, summary: message }];
}

/** What the daemon refuses of a valid HTTPS rule: the companion on the rule's own port, an automatic certificate without names. */
function httpsProblem(r: WebRule, inLang: Lang): FormProblem[] {
  if (r.protocol !== 'https') return [];
  if (r.httpRedirectPort === r.port) return daemonProblem('httpRedirectPort', { key: 'webRedirectPortSame', vars: { port: r.port } }, inLang);
  const auto = autoCertOf(r);
  if (auto && autoCertNames(r, auto).length === 0) return daemonProblem(`certs.${r.certs.indexOf(auto)}.domains`, { key: 'certAutoNoNames' }, inLang);
  return [];
}

/** What the daemon refuses of valid access settings: a new user without a password, forward auth on without its authorizer. */
function accessProblem(a: AccessForm, prefix: string, inLang: Lang): FormProblem[] {
  const password = passwordProblem(a.basicAuth.users, prefix, inLang);
  if (password.length) return password;
  if (a.forwardAuth.enable && a.forwardAuth.url.trim() === '') return daemonProblem(`${prefix}forwardAuth.url`, { key: 'webForwardAuthNoUrl' }, inLang);
  return [];
}

export function checkRule(f: RuleForm, inLang: Lang = lang): FormProblem[] {
  const rule = formToRule(f);
  const found = webProblem(ZWebRule, rule, inLang);
  if (found.length) return found;
  const https = httpsProblem(ZWebRule.parse(rule), inLang);
  if (https.length) return https;
  const own = accessProblem(f.access, '', inLang);
  if (own.length) return own;
  for (const [i, s] of f.subRules.entries()) {
    const sub = accessProblem(s.access, `subRules.${i}.`, inLang);
    if (sub.length) return sub;
  }
  return [];
}

export function checkSubRule(f: SubRuleForm, inLang: Lang = lang): FormProblem[] {
  const found = webProblem(ZWebSubRule, formToSubRule(f), inLang);
  return found.length ? found : accessProblem(f.access, '', inLang);
}

export interface ReplaceForm {
  from: string;
  to: string;
  keys: string[];
}
export const replaceBody = (f: ReplaceForm) => ({ from: f.from.trim(), to: f.to.trim(), keys: f.keys });
export const checkReplace = (f: ReplaceForm, inLang: Lang = lang) => webProblem(ZWebDomainReplace, replaceBody(f), inLang);

/** Which tab of the rule form holds a path. */
export type RuleTab = 'basic' | 'https' | 'service' | 'subrules' | 'access';
export function tabOf(path: string): RuleTab {
  if (path.startsWith('certs') || path === 'minTls' || path === 'httpRedirectPort') return 'https';
  if (path.startsWith('defaultService')) return 'service';
  if (path.startsWith('subRules')) return 'subrules';
  if (/^(basicAuth|portal|forwardAuth|ipFilter|uaFilter|cache|cors|robots|limits|trustedProxies|clientIpHeaders|accessLog)/.test(path)) return 'access';
  return 'basic';
}

/** Which section of the access editor holds a path (so it can be opened). */
export function accessSectionOf(path: string): string | null {
  const m = /^(?:subRules\.\d+\.)?(basicAuth|portal|forwardAuth|ipFilter|uaFilter|cache|cors|robots)/.exec(path);
  return m ? m[1]! : null;
}

