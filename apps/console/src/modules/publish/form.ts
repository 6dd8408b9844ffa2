/**
 * The published service form: names one a line, ports as typed; conversion to and from the
 * contract's rule, which fields sit in the "advanced" part, and the problems named by the form's
 * own labels. The module settings: the check interval.
 */
import { ZPublishConfigure, ZPublishRule, type Lang, type PublishConfigure, type PublishRule } from '@lucky/contracts';
import { lang } from '../../i18n';
import { schemaProblems, type ProblemWording } from '../../kit/form/problems';
import { joinLines, toNumber, type Num } from '../../kit/form/values';
import type { KitTextId } from '../../kit/texts';
import { lines } from '../../lib/helpers';
import { publishTextIn, type PublishTextId } from './i18n';

type PortField = 'httpsPort' | 'httpPort' | 'publicHttpsPort' | 'publicHttpPort';

export type ServiceForm = Omit<PublishRule, 'names' | 'stunServers' | PortField> & {
  /** One name a line. */
  names: string;
  /** One server a line. */
  stunServers: string;
} & { [K in PortField]: Num };

/** A new service: the contract's defaults (reached directly, the router asked, 443 and 80 both sides). */
export const emptyForm = (): ServiceForm => ({
  name: '',
  enable: true,
  target: '',
  names: '',
  reach: 'direct',
  dnsTask: '',
  httpsPort: 443,
  httpPort: 80,
  mapRouter: true,
  publicHttpsPort: 443,
  publicHttpPort: 80,
  upnpUrl: '',
  stunServers: '',
  note: '',
});

/** A saved service as the form holds it (the view's own fields — url, checks, parts — are left out). */
export const toForm = (r: PublishRule): ServiceForm => ({
  name: r.name,
  enable: r.enable,
  target: r.target,
  names: joinLines(r.names),
  reach: r.reach,
  dnsTask: r.dnsTask,
  httpsPort: r.httpsPort,
  httpPort: r.httpPort,
  mapRouter: r.mapRouter,
  publicHttpsPort: r.publicHttpsPort,
  publicHttpPort: r.publicHttpPort,
  upnpUrl: r.upnpUrl,
  stunServers: joinLines(r.stunServers),
  note: r.note,
});

/**
 * The field shows only while the router is asked: hidden, it is kept when valid (switching back
 * loses nothing) and dropped otherwise (a problem the user cannot see must not refuse the save).
 */
function upnpUrlOf(f: ServiceForm): string {
  const url = f.upnpUrl.trim();
  return f.mapRouter || ZPublishRule.shape.upnpUrl.safeParse(url).success ? url : '';
}

/** The service as the API takes it; numbers stay NaN when not numbers so validation names the field. */
export function formToRule(f: ServiceForm): PublishRule {
  return {
    name: f.name.trim(),
    enable: f.enable,
    target: f.target.trim(),
    names: lines(f.names).map((n) => n.trim().toLowerCase()),
    reach: f.reach,
    dnsTask: f.dnsTask,
    httpsPort: toNumber(f.httpsPort),
    httpPort: toNumber(f.httpPort),
    mapRouter: f.mapRouter,
    publicHttpsPort: toNumber(f.publicHttpsPort),
    publicHttpPort: toNumber(f.publicHttpPort),
    upnpUrl: upnpUrlOf(f),
    stunServers: lines(f.stunServers).map((s) => s.trim()),
    note: f.note,
  };
}

/** The fields of the folded "ports and router" part, opened when one of them holds a problem. */
const ADVANCED = ['httpsPort', 'httpPort', 'publicHttpsPort', 'publicHttpPort', 'upnpUrl', 'stunServers'];
export const isAdvanced = (path: string): boolean => ADVANCED.includes(path.split('.')[0]!);

const LABELS: Record<string, PublishTextId | KitTextId> = {
  name: 'name',
  target: 'target',
  names: 'names',
  dnsTask: 'dnsTask',
  httpsPort: 'httpsPort',
  httpPort: 'httpPort',
  publicHttpsPort: 'publicHttpsPort',
  publicHttpPort: 'publicHttpPort',
  upnpUrl: 'upnpUrl',
  stunServers: 'stunServers',
  note: 'note',
  checkInterval: 'set.checkInterval',
};

function wording(inLang: Lang): ProblemWording {
  const text = publishTextIn(inLang);
  return {
    lang: inLang,
    text,
    label: (path) => {
      const field = path.filter((x): x is string => typeof x === 'string').join('.');
      const id = LABELS[field];
      return id ? text(id) : field;
    },
    shortInline: true,
  };
}

export const checkRule = (f: ServiceForm, inLang: Lang = lang) => schemaProblems(ZPublishRule, formToRule(f), wording(inLang));

// ---- settings ----

export type SettingsForm = { checkInterval: Num };

export const settingsToForm = (c: PublishConfigure): SettingsForm => ({ checkInterval: c.checkInterval });
/** The whole settings object: PUT replaces it. */
export const settingsToBody = (s: SettingsForm): PublishConfigure => ({ checkInterval: toNumber(s.checkInterval) });
export const checkSettings = (s: SettingsForm, inLang: Lang = lang) => schemaProblems(ZPublishConfigure, settingsToBody(s), wording(inLang));
