/**
 * The info feed: a small JSON document an operator may publish (or take from whoever makes their
 * builds) saying which release is the latest and what its users should know. Lucky fetches nothing
 * by default; only once Settings names a feed URL does the daemon read it, when the About page (or
 * an API client) asks, and the browser talks to the daemon alone. docs/INFO-FEED.md describes it.
 */
import { z } from 'zod';
import { msgKey } from './i18n.js';

/** A feed is a few hundred bytes; an answer past this is not one. */
export const INFO_FEED_MAX_BYTES = 64 * 1024;
/** How long a fetched feed is answered from memory before the next request reads it again. */
export const INFO_FEED_TTL_MS = 60 * 60 * 1000;

/** http or https, a host, then anything without spaces. */
const HTTP_URL = /^https?:\/\/[^\s/?#]+\S*$/i;
const ZHttpUrl = z.string().trim().max(2048).regex(HTTP_URL, { error: msgKey('invalidUrl') });

/** Settings → info feed: '' (the default) fetches nothing. One regex, not a union, so that a refusal says why. */
export const ZInfoFeedUrl = z
  .string()
  .trim()
  .max(2048)
  .regex(/^(?:https?:\/\/[^\s/?#]+\S*)?$/i, { error: msgKey('invalidUrl') });

/** A text for every reader, or one per language (a reader whose language is missing gets the other). */
const ZFeedText = z.union([
  z.string().trim().min(1).max(1000),
  z
    .object({ zh_CN: z.string().trim().min(1).max(1000).optional(), en_US: z.string().trim().min(1).max(1000).optional() })
    .refine((t) => t.zh_CN !== undefined || t.en_US !== undefined, { error: msgKey('cannotBeEmpty') }),
]);
export type InfoFeedText = z.infer<typeof ZFeedText>;

export const INFO_FEED_LEVELS = ['info', 'warning'] as const;

/** What the feed URL answers (`application/json`). Fields beyond these are ignored. */
export const ZInfoFeed = z.object({
  /** The newest release, as this program numbers its versions (`2.4.0`). */
  latestVersion: z.string().trim().min(1).max(64),
  /** Where that release's notes are read. */
  notesUrl: ZHttpUrl.optional(),
  /** News for the operators, newest first; the About page shows them all. */
  messages: z
    .array(z.object({ level: z.enum(INFO_FEED_LEVELS).default('info'), text: ZFeedText, url: ZHttpUrl.optional() }))
    .max(20)
    .default([]),
});
export type InfoFeed = z.infer<typeof ZInfoFeed>;

/** What `GET /api/infofeed` answers: the feed as the daemon last read it, texts in the reader's language. */
export const ZInfoFeedState = z.object({
  /** The URL set in Settings; '' when none is, and then nothing is fetched. */
  url: z.string(),
  /** off: no URL set; ok: the last read gave a valid feed; failed: it did not (`error` says why). */
  state: z.enum(['off', 'ok', 'failed']),
  /** When the daemon last read the URL (ms since the epoch), 0 never. */
  fetchedAt: z.number(),
  /** '' unless `ok`. */
  latestVersion: z.string(),
  /** The feed's latest version is newer than this daemon's. */
  newer: z.boolean(),
  notesUrl: z.string(),
  messages: z.array(z.object({ level: z.enum(INFO_FEED_LEVELS), text: z.string(), url: z.string() })),
  error: z.string(),
});
export type InfoFeedState = z.infer<typeof ZInfoFeedState>;
