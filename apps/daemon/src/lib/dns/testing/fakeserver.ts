/**
 * The HTTP server under every provider fake (fakes.ts, fakes/): records kept in memory, requests
 * counted, refusals (a bad signature or key) counted with their reason, the provider's rate-limit
 * answer on demand, and helpers to keep records one by one or as RRsets.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRecord {
  id: string;
  /** Full name without trailing dot. */
  name: string;
  type: string;
  value: string;
  ttl: number;
  /** The RRset the record belongs to, where the API keeps sets (its id in the API). */
  set?: string;
}

export interface FakeProvider {
  name: string;
  url: string;
  records: Map<string, FakeRecord>;
  /** Requests answered, and those refused for a bad signature/credential. */
  requests: number;
  rejected: number;
  /** The last refusal's reason. */
  lastReject: string;
  /** Answers wait this long (a slow provider). */
  delayMs: number;
  /** The next this many requests get the provider's rate-limit answer (its documented shape). */
  limitNext: number;
  /** Rate-limit answers given. */
  limited: number;
  /** The last request, as it came (tests look at its headers). */
  last?: Req;
  find(name: string, type: string): FakeRecord | undefined;
  /** Every record of the name and type (oldest first). */
  all(name: string, type: string): FakeRecord[];
  /** Adds a record as somebody else would (the console, another client), into the name's set if it has one. */
  add(name: string, type: string, value: string, ttl?: number): FakeRecord;
  /** Called after a request changed records of a name and type, before it is answered (a test mirrors them into a DNS server). */
  onChange?: (name: string, type: string) => void | Promise<void>;
  close(): Promise<void>;
}

/** The account a stand-in accepts (the task's credential fields it uses). */
export interface FakeCreds {
  id: string;
  secret: string;
  id2?: string;
  id3?: string;
  secret2?: string;
}

export interface Req {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  body: string;
}
export type Reply = { status: number; body: unknown; type?: string; headers?: Record<string, string> };
export type Handler = (req: Req, st: FakeProvider) => Reply | Promise<Reply>;

export const sha256hex = (s: string) => createHash('sha256').update(s).digest('hex');
export const hmacHex = (key: string | Buffer, s: string) => createHmac('sha256', key).update(s).digest('hex');
export function safeEq(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
export const pctEncode = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export class Reject extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    reason: string,
  ) {
    super(reason);
  }
}

let nextId = 1000;
export function newId(): string {
  return String(nextId++);
}

/** The (name, type) pairs a request changed, per fake, for `onChange`. */
const changed = new WeakMap<FakeProvider, Set<string>>();
function touch(st: FakeProvider, name: string, type: string): void {
  let set = changed.get(st);
  if (!set) changed.set(st, (set = new Set()));
  set.add(`${name}\n${type}`);
}

/** Quoted zone-file TXT text → the text; null when it is not one quoted string. */
export function unquoted(data: string): string | null {
  const m = /^"((?:[^"\\]|\\.)*)"$/.exec(data.trim());
  return m ? m[1]!.replace(/\\(.)/g, '$1') : null;
}
export const quoted = (text: string) => `"${text.replace(/["\\]/g, (c) => `\\${c}`)}"`;

/** The zone every stand-in holds: names under it exist, others are a zone the account does not hold. */
export const FAKE_ZONE = 'example.com';
export const inZone = (name: string, zone = FAKE_ZONE) => name === zone || name.endsWith(`.${zone}`);
/** `www` of `www.example.com`, `@` at the apex. */
export const relativeOf = (name: string, zone = FAKE_ZONE) => (name === zone ? '@' : name.slice(0, -zone.length - 1));
/** The full name of a relative one (`@` or '' is the apex). */
export const fullOf = (rel: string, zone = FAKE_ZONE) => (rel === '@' || rel === '' ? zone : `${rel}.${zone}`);
/** The records of a name and type, oldest first. */
export const recordsOf = (st: FakeProvider, name: string, type: string) => [...st.records.values()].filter((r) => r.name === name && r.type === type);
/** A JSON body, or {} when there is none. */
export const bodyOf = <T = Record<string, unknown>>(r: Req): T => (r.body ? JSON.parse(r.body) : {}) as T;

/** A rate-limit answer: HTTP 429 asking to come back at once (tests should not wait). */
export const TOO_MANY: Reply = { status: 429, body: { message: 'Too Many Requests' }, headers: { 'retry-after': '0' } };

export interface ServeOptions {
  /** The provider's rate-limit answer (default: 429 with `Retry-After: 0`), or its answer for a request (a stand-in serving two APIs). */
  limited?: Reply | ((r: Req) => Reply);
}

export async function serve(name: string, handler: Handler, opts: ServeOptions = {}): Promise<FakeProvider> {
  const records = new Map<string, FakeRecord>();
  const st: FakeProvider = {
    name,
    url: '',
    records,
    requests: 0,
    rejected: 0,
    lastReject: '',
    delayMs: 0,
    limitNext: 0,
    limited: 0,
    find: (n, t) => [...records.values()].find((r) => r.name === n && r.type === t),
    all: (n, t) => [...records.values()].filter((r) => r.name === n && r.type === t),
    add: (n, t, v, ttl = 300) => {
      const set = st.find(n, t)?.set;
      return upsert(st, n, t, v, ttl, undefined, set);
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      st.requests++;
      if (st.delayMs) await new Promise((r) => setTimeout(r, st.delayMs));
      const r: Req = { method: req.method ?? 'GET', url: new URL(req.url ?? '/', 'http://x'), headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      st.last = r;
      let out: Reply;
      try {
        if (st.limitNext > 0) {
          st.limitNext--;
          st.limited++;
          out = (typeof opts.limited === 'function' ? opts.limited(r) : opts.limited) ?? TOO_MANY;
        } else out = await handler(r, st);
      } catch (err) {
        if (err instanceof Reject) {
          st.rejected++;
          st.lastReject = err.message;
          out = { status: err.status, body: err.body };
        } else out = { status: 500, body: { error: (err as Error).message } };
      }
      const touched = changed.get(st);
      changed.delete(st);
      for (const key of touched ?? []) {
        const [n, t] = key.split('\n') as [string, string];
        await st.onChange?.(n, t);
      }
      const text = typeof out.body === 'string' ? out.body : JSON.stringify(out.body);
      res.writeHead(out.status, { 'content-type': out.type ?? (typeof out.body === 'string' ? 'text/plain' : 'application/json'), ...out.headers });
      res.end(text);
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  st.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return st;
}

export function upsert(st: FakeProvider, name: string, type: string, value: string, ttl: number, id?: string, set?: string): FakeRecord {
  const existing = id ? st.records.get(id) : undefined;
  const rec: FakeRecord = { id: existing?.id ?? id ?? newId(), name, type, value, ttl, ...(set ? { set } : {}) };
  if (existing) touch(st, existing.name, existing.type);
  st.records.set(rec.id, rec);
  touch(st, name, type);
  return rec;
}

export function drop(st: FakeProvider, id: string): boolean {
  const rec = st.records.get(id);
  if (!rec) return false;
  st.records.delete(id);
  touch(st, rec.name, rec.type);
  return true;
}

/** An RRset's records, oldest first. */
export function setRecords(st: FakeProvider, set: string): FakeRecord[] {
  return [...st.records.values()].filter((r) => r.set === set);
}

/** Makes an RRset hold exactly these values; its records keep their ids in order (a one-value set keeps its record). */
export function replaceSet(st: FakeProvider, set: string, name: string, type: string, values: string[], ttl: number): void {
  const old = setRecords(st, set);
  values.forEach((v, i) => upsert(st, name, type, v, ttl, old[i]?.id, set));
  for (const r of old.slice(values.length)) drop(st, r.id);
}

/** The RRset id of a name and type, when it has records. */
export function setOf(st: FakeProvider, name: string, type: string): string | undefined {
  return st.find(name, type)?.set;
}
