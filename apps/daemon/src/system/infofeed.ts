/**
 * The info feed of Settings (docs/INFO-FEED.md), read by the daemon rather than by the browser: the
 * console then talks to the daemon alone (no third party learns the operator's address, console
 * URL or browser; nothing to allow in CORS), every browser shares one read an hour, and the answer
 * is checked here with the contract before anyone sees it. With no URL set nothing is ever sent.
 */
import {
  compareVersions,
  formatIssues,
  INFO_FEED_MAX_BYTES,
  INFO_FEED_TTL_MS,
  message,
  renderMsg,
  ZInfoFeed,
  type InfoFeed,
  type InfoFeedState,
  type InfoFeedText,
  type Lang,
  type Msg,
} from '@lucky/contracts';
import type { BaseConfigStore } from '../core/baseconfig.js';
import type { Say } from '../core/logs.js';
import type { HttpClients } from '../lib/http/clients.js';
import type { HttpFn } from '../lib/http/request.js';
import { jsonOf } from '../lib/http/request.js';
import { MsgError, msgOf } from '../lib/msgerror.js';

const TIMEOUT_MS = 10_000;
/** A failed read is not tried again for this long, however often the page is opened. */
const RETRY_AFTER_FAILURE_MS = 60_000;

interface Read {
  url: string;
  at: number;
  feed?: InfoFeed;
  error?: Msg;
  /** An answer in JSON that is no feed: which field is wrong is said in the reader's language. */
  invalid?: unknown;
}

export interface InfoFeedOptions {
  config: BaseConfigStore;
  version: string;
  say: Say;
  now?: () => number;
  /** How long a read may take (tests shorten it). */
  timeoutMs?: number;
}

export class InfoFeedReader {
  private last: Read | undefined;
  private reading: Promise<Read> | undefined;
  private clients: Promise<HttpClients> | undefined;
  private unsubscribe: () => void;

  constructor(private o: InfoFeedOptions) {
    // Another URL (or none) applies to the next read; what the old one said is no longer shown.
    this.unsubscribe = o.config.onChange((next, prev) => {
      if (next.InfoFeedUrl !== prev.InfoFeedUrl) this.last = undefined;
    });
  }

  /** The feed as the reader sees it; reads the URL when none is cached, it is stale, or `refresh`. */
  async state(lang: Lang, refresh = false): Promise<InfoFeedState> {
    const url = this.o.config.get().InfoFeedUrl;
    if (url === '') return present('', undefined, this.o.version, lang);
    const now = (this.o.now ?? Date.now)();
    const last = this.last?.url === url ? this.last : undefined;
    const fresh = last && now - last.at < (last.feed ? INFO_FEED_TTL_MS : RETRY_AFTER_FAILURE_MS);
    if (fresh && !refresh) return present(url, last, this.o.version, lang);
    return present(url, await this.read(url), this.o.version, lang);
  }

  /** One read at a time: pages opened together share it. */
  private read(url: string): Promise<Read> {
    if (this.reading) return this.reading;
    this.reading = this.fetch(url).finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async fetch(url: string): Promise<Read> {
    const at = (this.o.now ?? Date.now)();
    let read: Read;
    try {
      const http = await this.http();
      const res = await http({ url, headers: { accept: 'application/json' } });
      if (res.status < 200 || res.status > 299) throw new MsgError({ key: 'httpStatus', vars: { status: res.status } });
      const body = jsonOf<unknown>(res);
      const parsed = ZInfoFeed.safeParse(body);
      if (parsed.success) {
        read = { url, at, feed: parsed.data };
        this.o.say.info({ key: 'logInfoFeedRead', vars: { url, version: parsed.data.latestVersion } });
      } else {
        read = { url, at, invalid: body };
        const field = parsed.error.issues[0]?.path.join('.') || '-';
        this.o.say.warn({ key: 'logInfoFeedFailed', vars: { url, detail: { key: 'infoFeedInvalid', vars: { detail: field } } } });
      }
    } catch (err) {
      const error = msgOf(err);
      read = { url, at, error };
      this.o.say.warn({ key: 'logInfoFeedFailed', vars: { url, detail: error } });
    }
    // The URL may have changed while it was read: then this answer belongs to no one.
    if (this.o.config.get().InfoFeedUrl === url) this.last = read;
    return read;
  }

  private async http(): Promise<HttpFn> {
    // undici is loaded only once a feed is set and read.
    this.clients ??= import('../lib/http/clients.js').then((m) => new m.HttpClients());
    return (await this.clients).client({ timeoutMs: this.o.timeoutMs ?? TIMEOUT_MS, maxBytes: INFO_FEED_MAX_BYTES });
  }

  async close(): Promise<void> {
    this.unsubscribe();
    await (await this.clients)?.close();
  }
}

const textIn = (t: InfoFeedText, lang: Lang): string => (typeof t === 'string' ? t : (t[lang] ?? t.zh_CN ?? t.en_US ?? ''));

function present(url: string, read: Read | undefined, version: string, lang: Lang): InfoFeedState {
  const feed = read?.feed;
  return {
    url,
    state: url === '' ? 'off' : feed ? 'ok' : 'failed',
    fetchedAt: read?.at ?? 0,
    latestVersion: feed?.latestVersion ?? '',
    newer: feed ? compareVersions(feed.latestVersion, version) > 0 : false,
    notesUrl: feed?.notesUrl ?? '',
    messages: (feed?.messages ?? []).map((m) => ({ level: m.level, text: textIn(m.text, lang), url: m.url ?? '' })),
    error:
      read?.invalid !== undefined
        ? message(lang, 'infoFeedInvalid', { detail: formatIssues(ZInfoFeed, read.invalid, lang) })
        : read?.error
          ? renderMsg(lang, read.error)
          : '',
  };
}
