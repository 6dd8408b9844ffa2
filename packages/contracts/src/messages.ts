/**
 * Every text a user reads, in both languages, and the language headers. The tables live in
 * messages/, one per area; what the daemon keeps (statuses, log lines) is a `Msg` — a key and its
 * values — rendered in the reader's language when it is read. No zod here: a web serving thread
 * renders statuses with these without loading the schemas (i18n.ts re-exports it all).
 */
import { certificatesMessages } from './messages/certificates.js';
import { coreMessages } from './messages/core.js';
import { cronMessages } from './messages/cron.js';
import { ddnsMessages } from './messages/ddns.js';
import { dnsMessages } from './messages/dns.js';
import { dnsProviderMessages } from './messages/dnsproviders.js';
import { ftpserverMessages } from './messages/ftpserver.js';
import { sftpserverMessages } from './messages/sftpserver.js';
import { filebrowserMessages } from './messages/filebrowser.js';
import { httpMessages } from './messages/http.js';
import { portforwardMessages } from './messages/portforward.js';
import { rulesMessages } from './messages/rules.js';
import { storageMessages } from './messages/storage.js';
import { stunMessages } from './messages/stun.js';
import { webMessages } from './messages/web.js';
import { wolMessages } from './messages/wol.js';
import { publishMessages } from './messages/publish.js';
import { portalMessages } from './messages/portal.js';
import { acmeMessages } from './messages/acme.js';
import { wanjiMessages } from './messages/wanji.js';
export const LANGS = ['zh_CN', 'en_US'] as const;
export type Lang = (typeof LANGS)[number];
export const DEFAULT_LANG: Lang = 'zh_CN';

/** Header the console sends with every call so the daemon answers in the user's language. */
export const LANG_HEADER = 'lucky-lang';
/** Header that carries the session token. */
export const TOKEN_HEADER = 'lucky-admin-token';

export function parseLang(value: unknown): Lang {
  if (typeof value !== 'string') return DEFAULT_LANG;
  if ((LANGS as readonly string[]).includes(value)) return value as Lang;
  // Accept-Language style values: "en", "en-US,en;q=0.9".
  return /^en\b/i.test(value) ? 'en_US' : DEFAULT_LANG;
}

const TABLES = [coreMessages, rulesMessages, wolMessages, ddnsMessages, dnsMessages, dnsProviderMessages, httpMessages, webMessages, portforwardMessages, certificatesMessages, stunMessages, storageMessages, ftpserverMessages, sftpserverMessages, filebrowserMessages, cronMessages, acmeMessages, wanjiMessages, publishMessages, portalMessages] as const;

type Table = (typeof TABLES)[number]['zh_CN'];
type KeysOf<T> = T extends unknown ? keyof T : never;
export type MessageKey = KeysOf<Table> & string;

function merge(lang: Lang): Record<MessageKey, string> {
  const out: Record<string, string> = {};
  for (const t of TABLES) {
    for (const [k, v] of Object.entries(t[lang])) {
      // Two areas must not claim one key: the second would silently win.
      if (k in out) throw new Error(`message key ${k} is defined twice`);
      out[k] = v;
    }
  }
  return out as Record<MessageKey, string>;
}

export const MESSAGES: Record<Lang, Record<MessageKey, string>> = { zh_CN: merge('zh_CN'), en_US: merge('en_US') };

/** A value of a message: text, a number, or another message rendered in the same language. */
export type MsgValue = string | number | Msg;
/** A message as the daemon keeps it: a key and its values, rendered when read. */
export interface Msg {
  key: MessageKey;
  vars?: Record<string, MsgValue>;
}

export function message(lang: Lang, key: MessageKey, vars: Record<string, MsgValue> = {}): string {
  return MESSAGES[lang][key].replace(/\{(\w+)\}/g, (m, name: string) => {
    const v = vars[name];
    if (v === undefined) return m;
    return typeof v === 'object' ? message(lang, v.key, v.vars) : String(v);
  });
}

export const msg = (key: MessageKey, vars?: Record<string, MsgValue>): Msg => (vars ? { key, vars } : { key });

export function renderMsg(lang: Lang, m: Msg): string {
  return message(lang, m.key, m.vars);
}

/** Several messages as one text: the statuses with more than one part. */
export function renderMsgs(lang: Lang, parts: readonly Msg[]): string {
  return parts.map((p) => renderMsg(lang, p)).join(lang === 'zh_CN' ? '；' : '; ');
}
