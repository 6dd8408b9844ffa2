/**
 * What an outgoing HTTP request and its answer are, and the small helpers that build and read them.
 * No client here: code that only needs to send requests (providers, webhooks, IP sources) is given
 * an `HttpFn` and stays free of undici; `clients.ts` makes them.
 */
import type { HttpProxy } from '@lucky/contracts';
import { MsgError } from '../msgerror.js';

export interface HttpRequest {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** The answer's bytes as they came, in `bytes` (a binary format: OCSP); `text` is then empty. */
  raw?: boolean;
  /** Ends the request early (a deadline of several requests); its reason, when a MsgError, is the error. */
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** With `raw`. */
  bytes?: Buffer;
}

export interface HttpOptions {
  timeoutMs: number;
  proxy?: HttpProxy;
  skipVerify?: boolean;
  /** PEM root certificate(s) trusted instead of the system's (a private CA such as step-ca or pebble). */
  ca?: string;
  /**
   * SHA-256 fingerprint of the server's certificate (`AB:CD:…`, as Node's `fingerprint256`): any
   * other certificate is refused. Without `ca` that certificate alone is trusted (a self-signed one).
   */
  pin?: string;
  /** Answers larger than this fail (httpTooLarge); without it they are cut at 1 MiB. */
  maxBytes?: number;
}

export type HttpFn = (req: HttpRequest) => Promise<HttpResponse>;

/** `Name: value` lines into a header object. */
export function headerLines(lines: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    if (i > 0) out[l.slice(0, i).trim()] = l.slice(i + 1).trim();
  }
  return out;
}

/** The start of an answer, as quoted in errors. */
export function excerpt(res: HttpResponse, max = 300): string {
  return res.text.slice(0, max);
}

/** JSON body of an answer, or an error that quotes the start of what came back. */
export function jsonOf<T>(res: HttpResponse): T {
  try {
    return JSON.parse(res.text) as T;
  } catch {
    throw new MsgError({ key: 'httpNotJson', vars: { status: res.status, detail: excerpt(res, 200) } });
  }
}

/** Milliseconds a `Retry-After` asks for (seconds or an HTTP date); null without a usable one. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | null {
  if (value === undefined) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, at - now) : null;
}
