/**
 * The HTTP/1.1 response parser of the proxy's client (web.upstream.ts): the head (status line,
 * headers, and what they say about framing and keep-alive), then the body by Content-Length, chunked
 * or up to the close. It is fed one connection's bytes as they arrive, split anywhere across reads,
 * and tells its sink what it found. Only a split head, chunk line or trailer block is kept between
 * reads; body bytes are handed on as copies (the caller's read buffer is shared).
 */

const MAX_HEAD = 64 * 1024;
const MAX_CHUNK_LINE = 4096;
const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');
const HEX_RE = /^[0-9A-Fa-f]{1,12}$/;

/** What the parser took from a response head. */
export interface ResponseHead {
  status: number;
  /** Flat [name, value, ...] as the backend wrote the names. */
  headers: string[];
  /** -1 when absent. */
  contentLength: number;
  chunked: boolean;
  /** Transfer-Encoding other than chunked last: the body runs to the close. */
  otherEncoding: boolean;
  /** The backend will not keep the connection (Connection: close, or HTTP/1.0 without keep-alive). */
  close: boolean;
  /** From `Keep-Alive: timeout=N`; -1 when not announced. */
  keepAliveMs: number;
}

/** tchar (RFC 9110 section 5.6.2) by character code. */
const TCHAR = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") TCHAR[c.charCodeAt(0)] = 1;

function isToken(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 127 || TCHAR[c] === 0) return false;
  }
  return s.length > 0;
}

/** A decimal number made of digits only (at most 15), else -1. */
function decimal(s: string): number {
  if (s.length === 0 || s.length > 15) return -1;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

function hasToken(list: string, token: string): boolean {
  // The usual header holds one token: no split for it.
  if (!list.includes(',')) return list.length === token.length && list.toLowerCase() === token;
  for (const t of list.split(',')) if (t.trim().toLowerCase() === token) return true;
  return false;
}

/** One header's effect on framing and keep-alive; returns an error text or null. */
function framing(head: ResponseHead, name: string, value: string, ka: { token: boolean }): string | null {
  // Only names of these lengths can matter: most headers skip the lower-casing.
  const n = name.length;
  if (n !== 10 && n !== 14 && n !== 17) return null;
  const lower = name.toLowerCase();
  if (lower === 'content-length') {
    // A repeated or listed length is fine only when every value agrees.
    for (const part of value.includes(',') ? value.split(',') : [value]) {
      const len = decimal(part.trim());
      if (len < 0) return 'bad Content-Length';
      if (head.contentLength >= 0 && head.contentLength !== len) return 'conflicting Content-Length';
      head.contentLength = len;
    }
  } else if (lower === 'transfer-encoding') {
    const codings = value.split(',');
    const last = codings[codings.length - 1]!.trim().toLowerCase();
    head.chunked = last === 'chunked';
    head.otherEncoding = !head.chunked;
  } else if (lower === 'connection') {
    if (hasToken(value, 'close')) head.close = true;
    if (hasToken(value, 'keep-alive')) ka.token = true;
  } else if (lower === 'keep-alive') {
    const m = /(?:^|[,;\s])timeout\s*=\s*(\d+)/i.exec(value);
    if (m) head.keepAliveMs = Number(m[1]) * 1000;
  }
  return null;
}

/** Parses a response head (status line and header lines, without the blank line); a string is the error. */
export function parseHead(text: string): ResponseHead | string {
  let eol = text.indexOf('\r\n');
  if (eol < 0) eol = text.length;
  // "HTTP/1.1 200" with an optional reason after a space.
  if (eol < 12 || !text.startsWith('HTTP/1.') || text.charCodeAt(8) !== 32 || (eol > 12 && text.charCodeAt(12) !== 32)) {
    return 'bad status line';
  }
  const minor = text.charCodeAt(7) - 48;
  const status = decimal(text.slice(9, 12));
  if ((minor !== 0 && minor !== 1) || status < 100) return 'bad status line';
  const head: ResponseHead = { status, headers: [], contentLength: -1, chunked: false, otherEncoding: false, close: false, keepAliveMs: -1 };
  const ka = { token: false };
  let pos = eol + 2;
  while (pos < text.length) {
    let next = text.indexOf('\r\n', pos);
    if (next < 0) next = text.length;
    const colon = text.indexOf(':', pos);
    if (colon <= pos || colon > next) return 'bad header line';
    const name = text.slice(pos, colon);
    if (!isToken(name)) return 'bad header name';
    let vs = colon + 1;
    let ve = next;
    while (vs < ve && (text.charCodeAt(vs) === 32 || text.charCodeAt(vs) === 9)) vs++;
    while (ve > vs && (text.charCodeAt(ve - 1) === 32 || text.charCodeAt(ve - 1) === 9)) ve--;
    const value = text.slice(vs, ve);
    const bad = framing(head, name, value, ka);
    if (bad) return bad;
    head.headers.push(name, value);
    pos = next + 2;
  }
  if (head.contentLength >= 0 && (head.chunked || head.otherEncoding)) return 'both Content-Length and Transfer-Encoding';
  if (minor === 0 && !ka.token) head.close = true;
  return head;
}

function copyOf(buf: Buffer, start: number, end: number): Buffer {
  const out = Buffer.allocUnsafe(end - start);
  buf.copy(out, 0, start, end);
  return out;
}

/** `needle` inside buf[start, end), or -1 (the shared buffer holds stale bytes past `end`). */
function find(buf: Buffer, needle: Buffer, start: number, end: number): number {
  const i = buf.indexOf(needle, start);
  return i >= 0 && i + needle.length <= end ? i : -1;
}

// Phases of one answer.
const IDLE = 0;
const HEAD = 1;
const LENGTH = 2;
const CHUNK_SIZE = 3;
const CHUNK_DATA = 4;
const CHUNK_END = 5;
const TRAILERS = 6;
const TO_CLOSE = 7;

/** Where the parser's findings go: the connection that owns it. */
export interface ResponseSink {
  /** The final head (interim 1xx answers are skipped); false abandons the answer. */
  onHead(head: ResponseHead): boolean;
  /** A body chunk, a copy the sink owns. */
  onBody(chunk: Buffer): void;
  /** The answer is complete; `extra` = more bytes followed it (nothing may, on HTTP/1.1). */
  onComplete(extra: boolean): void;
  /** A 101 answer to an upgrade request, with the bytes that came after its head. */
  onUpgrade(head: ResponseHead, rest: Buffer): void;
  /** The answer cannot be read; the connection cannot be trusted again. */
  onBad(why: string): void;
}

export class ResponseParser {
  private phase = IDLE;
  /** An unfinished head, chunk-size line or trailer block, kept until the rest arrives. */
  private pending: Buffer | null = null;
  private remaining = 0;
  private noBody = false;
  private upgrade = false;
  /** Bumped for each answer expected and on reset: a feed of an earlier answer stops at once. */
  private gen = 0;
  /** The final head of the current answer has been read. */
  headSeen = false;

  constructor(private sink: ResponseSink) {}

  /** A request went out: its answer comes next. `noBody`: a HEAD request; `upgrade`: 101 is awaited. */
  expect(noBody: boolean, upgrade: boolean): void {
    this.gen++;
    this.phase = HEAD;
    this.pending = null;
    this.remaining = 0;
    this.noBody = noBody;
    this.upgrade = upgrade;
    this.headSeen = false;
  }

  /** Nothing more is read (the connection is gone, or the answer was taken over). */
  reset(): void {
    this.gen++;
    this.phase = IDLE;
    this.pending = null;
  }

  /** An answer is awaited or under way. */
  get busy(): boolean {
    return this.phase !== IDLE;
  }

  /** The body runs to the close of the connection (no length, not chunked). */
  get readsToClose(): boolean {
    return this.phase === TO_CLOSE;
  }

  /** The connection ended: true when that completes a body that runs to the close. */
  ended(): boolean {
    if (this.phase !== TO_CLOSE) return false;
    this.phase = IDLE;
    this.sink.onComplete(false);
    return true;
  }

  /** input[from, to) arrived. */
  feed(input: Buffer, from: number, to: number): void {
    const gen = this.gen;
    let buf = input;
    let start = from;
    let end = to;
    if (this.pending) {
      buf = Buffer.concat([this.pending, input.subarray(from, to)]);
      this.pending = null;
      start = 0;
      end = buf.length;
    }
    while (start < end && gen === this.gen && this.phase !== IDLE) {
      switch (this.phase) {
        case HEAD:
          start = this.readHead(buf, start, end);
          break;
        case LENGTH:
        case CHUNK_DATA:
          start = this.readBody(gen, buf, start, end);
          break;
        case CHUNK_SIZE:
          start = this.readChunkSize(buf, start, end);
          break;
        case CHUNK_END:
          start = this.readChunkEnd(buf, start, end);
          break;
        case TRAILERS:
          start = this.readTrailers(buf, start, end);
          break;
        case TO_CLOSE:
          this.sink.onBody(copyOf(buf, start, end));
          start = end;
          break;
      }
    }
  }

  /** Keeps buf[start, end) for the next read; returns `end`. */
  private stash(buf: Buffer, start: number, end: number, limit: number, what: string): number {
    if (end - start > limit) return this.bad(`${what} too large`);
    this.pending = copyOf(buf, start, end);
    return end;
  }

  private bad(why: string): number {
    this.reset();
    this.sink.onBad(why);
    return Number.MAX_SAFE_INTEGER;
  }

  private readHead(buf: Buffer, start: number, end: number): number {
    const at = find(buf, HEAD_END, start, end);
    if (at < 0) return this.stash(buf, start, end, MAX_HEAD, 'response head');
    if (at - start > MAX_HEAD) return this.bad('response head too large');
    const head = parseHead(buf.toString('latin1', start, at));
    if (typeof head === 'string') return this.bad(head);
    const next = at + 4;
    const status = head.status;
    if (status === 101 && this.upgrade) {
      this.reset();
      this.sink.onUpgrade(head, copyOf(buf, next, end));
      return end;
    }
    if (status < 200) return status === 101 ? this.bad('101 without an upgrade request') : next; // interim answers are not passed on
    this.headSeen = true;
    if (this.noBody || status === 204 || status === 304) this.phase = IDLE;
    else if (head.chunked) this.phase = CHUNK_SIZE;
    else if (head.contentLength >= 0) {
      this.phase = head.contentLength > 0 ? LENGTH : IDLE;
      this.remaining = head.contentLength;
    } else this.phase = TO_CLOSE;
    if (!this.sink.onHead(head)) {
      this.reset();
      return end;
    }
    if (this.phase === IDLE) this.sink.onComplete(next < end);
    return next;
  }

  private readBody(gen: number, buf: Buffer, start: number, end: number): number {
    const n = Math.min(this.remaining, end - start);
    this.remaining -= n;
    const chunk = copyOf(buf, start, start + n);
    const last = this.remaining === 0;
    if (last) this.phase = this.phase === LENGTH ? IDLE : CHUNK_END;
    this.sink.onBody(chunk);
    // The sink may have dropped the answer meanwhile (its client went away).
    if (last && this.phase === IDLE && gen === this.gen) this.sink.onComplete(start + n < end);
    return start + n;
  }

  private readChunkSize(buf: Buffer, start: number, end: number): number {
    const at = find(buf, CRLF, start, end);
    if (at < 0) return this.stash(buf, start, end, MAX_CHUNK_LINE, 'chunk size line');
    const line = buf.toString('latin1', start, at);
    // Chunk extensions (";name=value") are allowed and ignored.
    const semi = line.indexOf(';');
    const hex = (semi < 0 ? line : line.slice(0, semi)).trim();
    if (!HEX_RE.test(hex)) return this.bad('bad chunk size');
    const size = parseInt(hex, 16);
    if (size === 0) this.phase = TRAILERS;
    else {
      this.phase = CHUNK_DATA;
      this.remaining = size;
    }
    return at + 2;
  }

  private readChunkEnd(buf: Buffer, start: number, end: number): number {
    if (end - start < 2) return this.stash(buf, start, end, 2, 'chunk end');
    if (buf[start] !== 13 || buf[start + 1] !== 10) return this.bad('chunk not followed by CRLF');
    this.phase = CHUNK_SIZE;
    return start + 2;
  }

  /** Trailers are read and dropped (the answer to the client is re-framed). */
  private readTrailers(buf: Buffer, start: number, end: number): number {
    if (end - start < 2) return this.stash(buf, start, end, 2, 'trailers');
    let next: number;
    if (buf[start] === 13 && buf[start + 1] === 10) next = start + 2;
    else {
      const at = find(buf, HEAD_END, start, end);
      if (at < 0) return this.stash(buf, start, end, MAX_HEAD, 'trailers');
      next = at + 4;
    }
    this.phase = IDLE;
    this.sink.onComplete(next < end);
    return next;
  }
}
