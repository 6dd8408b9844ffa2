/**
 * An S3-compatible bucket as a storage (AWS S3, MinIO, Garage, Ceph RGW, Cloudflare R2…): requests
 * signed with AWS Signature Version 4 (lib/http/sign/sigv4.ts; bodies streamed are signed as
 * `UNSIGNED-PAYLOAD`, as S3 allows), addressed path-style (`endpoint/bucket/key`) or virtual-host
 * style (`bucket.endpoint/key`), over one keep-alive connection pool per storage. The storage's
 * `prefix` is its root inside the bucket.
 *
 * S3 has no folders: a folder is a key prefix ending in `/`. A listing is ListObjectsV2 with
 * `delimiter=/` (its CommonPrefixes are the folders), page by page; `mkdir` puts a zero-byte marker
 * object `dir/` (so an empty folder stays); a folder exists when its marker or any key under it does.
 *
 * An object appears under its key only once it is complete (a single PUT with its whole length, or
 * a multipart upload when CompleteMultipartUpload succeeds), so an interrupted write never shows as
 * the file; a multipart upload that fails is aborted (AbortMultipartUpload) so its parts are freed
 * (when the remote is gone the abort cannot reach it either: a bucket lifecycle rule
 * AbortIncompleteMultipartUpload frees such parts). Renames are copies then deletes: NOT atomic.
 */
import { createHash } from 'node:crypto';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { request, type Agent, type Dispatcher } from 'undici';
import { remoteDown } from './down.js';
import { passedRange, remoteAgent } from './http.js';
import type { Msg, RemoteS3 } from '@lucky/contracts';
import type { PassedBody } from '../../../core/filebody.js';
import { STORAGE_TEMP_PREFIX, type RemoteEntry, type RemoteFs, type RemoteStat } from '../../../core/services/storages.js';
import { rfc3986 } from '../../../lib/http/sign/encode.js';
import { AWS_V4, signV4 } from '../../../lib/http/sign/sigv4.js';
import { MsgError } from '../../../lib/msgerror.js';
import { parseXml, type XmlElement } from '../../../lib/xml.js';

/** A body of known size up to this goes as one PutObject; larger or unknown, as a multipart upload. */
export const S3_SINGLE_PUT_MAX = 8 * 1024 * 1024;
/** The first parts' size (S3's minimum is 5 MiB); one part is held in memory at a time. */
export const S3_PART_SIZE = 8 * 1024 * 1024;
/** The largest object one CopyObject copies; larger ones are copied in parts (UploadPartCopy). */
export const S3_COPY_MAX = 5 * 1024 * 1024 * 1024;
/** The parts of a copy in parts, server side: no byte comes through us. */
const S3_COPY_PART = 512 * 1024 * 1024;
/** S3's limit of parts in one upload. */
const MAX_PARTS = 10_000;
/** Of an unknown size, the part size doubles every this many parts (8 MiB × 2000, then 16 MiB…). */
const PARTS_PER_STEP = 2000;
/** A listing page or an error body larger than this is refused rather than parsed. */
const MAX_XML_BYTES = 8 * 1024 * 1024;
/** DeleteObjects takes at most this many keys a request. */
const DELETE_BATCH = 1000;

type Method = Dispatcher.HttpMethod;
type Query = Record<string, string>;

/** The first child of `el` of this local name, whatever its namespace (S3 answers with or without its xmlns). */
const kid = (el: XmlElement, name: string) => el.children.find((c): c is XmlElement => typeof c !== 'string' && c.name === name);
const kids = (el: XmlElement, name: string) => el.children.filter((c): c is XmlElement => typeof c !== 'string' && c.name === name);
const textIn = (el: XmlElement, name: string): string => {
  const k = kid(el, name);
  return k ? k.children.map((c) => (typeof c === 'string' ? c : '')).join('') : '';
};
const xmlEsc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

interface Listed {
  files: Array<{ key: string; size: number; mtimeMs: number }>;
  dirs: string[];
}

/** The URL of an object or of the bucket, path-style or virtual-host style: exported for its unit test. */
export function s3Url(cfg: Pick<RemoteS3, 'endpoint' | 'bucket' | 'pathStyle'>, key: string, query: Query = {}): URL {
  const ep = new URL(cfg.endpoint);
  const base = ep.pathname.replace(/\/+$/, '');
  const enc = key.split('/').map(rfc3986).join('/');
  const q = Object.entries(query)
    .map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`)
    .join('&');
  const host = cfg.pathStyle ? ep.host : `${cfg.bucket}.${ep.host}`;
  // The bucket itself (key ''): `endpoint/bucket` or `bucket.endpoint/`.
  const path = cfg.pathStyle ? `${base}/${cfg.bucket}${key === '' ? '' : `/${enc}`}` : `${base}/${enc}`;
  return new URL(`${ep.protocol}//${host}${path}${q ? `?${q}` : ''}`);
}

export class RemoteS3Fs implements RemoteFs {
  private readonly agent: Agent;
  /** The storage's root inside the bucket: '' or `a/b/`. */
  private readonly root: string;
  private readonly lookup: LookupFunction | undefined;

  private readonly copyMax: number;
  private readonly copyPart: number;

  /**
   * `o.lookup`: how host names are resolved (tests point `*.localhost` names at loopback);
   * `o.copyMax`, `o.copyPart`: S3's limits for copies (tests lower them to copy in parts).
   */
  constructor(
    private readonly name: string,
    private readonly cfg: RemoteS3,
    o: { lookup?: LookupFunction; copyMax?: number; copyPart?: number } = {},
  ) {
    const p = cfg.prefix.split('/').filter((s) => s !== '');
    this.root = p.length ? `${p.join('/')}/` : '';
    this.lookup = o.lookup;
    this.copyMax = o.copyMax ?? S3_COPY_MAX;
    this.copyPart = o.copyPart ?? S3_COPY_PART;
    this.agent = remoteAgent(o.lookup ? { lookup: o.lookup } : {});
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  /** The key of a clean storage path; a folder's with its trailing slash ('' or the prefix for the root). */
  private keyOf(path: string, dir = false): string {
    const rel = path
      .split('/')
      .filter((s) => s !== '')
      .join('/');
    return rel ? `${this.root}${rel}${dir ? '/' : ''}` : this.root;
  }

  private down(detail: Msg | string): MsgError {
    return remoteDown(this.name, detail);
  }

  /** A request's URL and signed headers. `body` as a string or Buffer is signed by its hash; a stream as UNSIGNED-PAYLOAD. */
  private signed(method: Method, key: string | null, o: { query?: Query; headers?: Record<string, string>; body?: string | Buffer | Readable | null }): { url: URL; headers: Record<string, string> } {
    // null: the bucket (listings, DeleteObjects); an object's key is never ''.
    const url = s3Url(this.cfg, key ?? '', o.query);
    const b = o.body ?? null;
    const payloadHash = b === null ? createHash('sha256').update('').digest('hex') : typeof b === 'string' || Buffer.isBuffer(b) ? createHash('sha256').update(b).digest('hex') : 'UNSIGNED-PAYLOAD';
    const headers = signV4(AWS_V4, {
      method,
      url,
      headers: { ...o.headers, 'x-amz-content-sha256': payloadHash },
      body: '',
      payloadHash,
      accessKey: this.cfg.accessKeyId,
      secretKey: this.cfg.secretAccessKey,
      region: this.cfg.region || 'us-east-1',
      service: 's3',
      date: new Date(),
    });
    // The clients set Host from the URL themselves.
    delete headers.host;
    return { url, headers };
  }

  /** One signed request. */
  private async send(method: Method, key: string | null, o: { query?: Query; headers?: Record<string, string>; body?: string | Buffer | Readable | null } = {}): Promise<Dispatcher.ResponseData> {
    const { url, headers } = this.signed(method, key, o);
    try {
      return await request(url, { dispatcher: this.agent, method, headers, body: o.body ?? null });
    } catch (err) {
      throw this.down(err instanceof Error ? err.message : String(err));
    }
  }

  private async bodyText(res: Dispatcher.ResponseData): Promise<string> {
    const chunks: Buffer[] = [];
    let n = 0;
    try {
      for await (const c of res.body) {
        n += (c as Buffer).length;
        if (n > MAX_XML_BYTES) {
          res.body.destroy();
          throw this.down('answer too large');
        }
        chunks.push(c as Buffer);
      }
    } catch (err) {
      if (err instanceof MsgError) throw err;
      throw this.down(err instanceof Error ? err.message : String(err));
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  private async xml(res: Dispatcher.ResponseData): Promise<XmlElement> {
    const text = await this.bodyText(res);
    try {
      return parseXml(text);
    } catch (err) {
      throw this.down(`bad XML answer: ${(err as Error).message}`);
    }
  }

  /** The error of a failed answer: its status with S3's error code and message when it has them. */
  private async failed(res: Dispatcher.ResponseData): Promise<MsgError> {
    let code = '';
    let message = '';
    try {
      const doc = parseXml(await this.bodyText(res));
      if (doc.name === 'Error') [code, message] = [textIn(doc, 'Code'), textIn(doc, 'Message')];
    } catch {
      // No XML (a HEAD, a proxy's page): the status alone.
    }
    if (!code) return this.down({ key: 'storageRemoteStatus', vars: { status: res.statusCode } });
    return this.down(`HTTP ${res.statusCode} ${code}${message ? `: ${message.slice(0, 200)}` : ''}`);
  }

  /** An error document inside a 200 answer (CopyObject and CompleteMultipartUpload can fail so). */
  private errorIn(doc: XmlElement): MsgError | null {
    return doc.name === 'Error' ? this.down(`${textIn(doc, 'Code')}: ${textIn(doc, 'Message').slice(0, 200)}`) : null;
  }

  /** One page of ListObjectsV2 under `prefix`. */
  private async listPage(prefix: string, o: { delimiter?: boolean; token?: string; max?: number }): Promise<Listed & { next: string | null }> {
    const query: Query = { 'list-type': '2', prefix };
    if (o.delimiter) query.delimiter = '/';
    if (o.token) query['continuation-token'] = o.token;
    if (o.max) query['max-keys'] = String(o.max);
    const res = await this.send('GET', null, { query });
    if (res.statusCode !== 200) throw await this.failed(res);
    const doc = await this.xml(res);
    if (doc.name !== 'ListBucketResult') throw this.errorIn(doc) ?? this.down(`unexpected answer <${doc.name}>`);
    const files = kids(doc, 'Contents').map((c) => {
      const lm = Date.parse(textIn(c, 'LastModified'));
      return { key: textIn(c, 'Key'), size: Number(textIn(c, 'Size')) || 0, mtimeMs: Number.isFinite(lm) ? lm : 0 };
    });
    const dirs = kids(doc, 'CommonPrefixes').map((c) => textIn(c, 'Prefix'));
    const truncated = textIn(doc, 'IsTruncated') === 'true';
    const next = truncated ? textIn(doc, 'NextContinuationToken') || null : null;
    if (truncated && !next) throw this.down('truncated listing without a continuation token');
    return { files, dirs, next };
  }

  /** Every key under `prefix` (no delimiter), page after page. */
  private async *allObjects(prefix: string): AsyncGenerator<Listed['files']> {
    let token: string | undefined;
    do {
      const page = await this.listPage(prefix, { token });
      yield page.files;
      token = page.next ?? undefined;
    } while (token);
  }

  async stat(path: string): Promise<RemoteStat | null> {
    if (path === '/' || this.keyOf(path) === this.root) {
      // The root always exists; asking for one key checks the bucket answers and takes us.
      await this.listPage(this.root, { max: 1 });
      return { kind: 'dir', size: 0, mtimeMs: 0 };
    }
    const res = await this.send('HEAD', this.keyOf(path));
    await res.body.dump().catch(() => undefined);
    if (res.statusCode === 200) {
      const lm = Date.parse(String(res.headers['last-modified'] ?? ''));
      return { kind: 'file', size: Number(res.headers['content-length']) || 0, mtimeMs: Number.isFinite(lm) ? lm : 0 };
    }
    if (res.statusCode !== 404) throw this.down({ key: 'storageRemoteStatus', vars: { status: res.statusCode } });
    const dir = this.keyOf(path, true);
    const page = await this.listPage(dir, { max: 1 });
    if (!page.files.length) return null;
    const marker = page.files[0]!.key === dir ? page.files[0]! : null;
    return { kind: 'dir', size: 0, mtimeMs: marker?.mtimeMs ?? 0 };
  }

  async list(path: string): Promise<RemoteEntry[]> {
    const prefix = this.keyOf(path, true);
    const byName = new Map<string, RemoteEntry>();
    let token: string | undefined;
    let any = prefix === this.root;
    do {
      const page = await this.listPage(prefix, { delimiter: true, token });
      for (const d of page.dirs) {
        any = true;
        const name = d.slice(prefix.length).replace(/\/$/, '');
        if (name && !name.startsWith(STORAGE_TEMP_PREFIX)) byName.set(name, { name, kind: 'dir', size: 0, mtimeMs: 0 });
      }
      for (const f of page.files) {
        any = true;
        const name = f.key.slice(prefix.length);
        // The folder's own marker is no entry; a file and a folder of one name: the folder is shown.
        if (!name || name.includes('/') || name.startsWith(STORAGE_TEMP_PREFIX) || byName.has(name)) continue;
        byName.set(name, { name, kind: 'file', size: f.size, mtimeMs: f.mtimeMs });
      }
      token = page.next ?? undefined;
    } while (token);
    if (!any) throw new MsgError({ key: 'storageNotFound' });
    return [...byName.values()];
  }

  async read(path: string, range?: { start: number; end?: number }): Promise<NodeJS.ReadableStream> {
    const headers: Record<string, string> = range ? { range: `bytes=${range.start}-${range.end ?? ''}` } : {};
    const res = await this.send('GET', this.keyOf(path), { headers });
    if (res.statusCode === 404) {
      await res.body.dump().catch(() => undefined);
      throw new MsgError({ key: 'storageNotFound' });
    }
    if (range && range.start > 0 && res.statusCode !== 206) throw await this.failed(res);
    if (res.statusCode !== 200 && res.statusCode !== 206) throw await this.failed(res);
    return res.body;
  }

  readRaw(path: string, range: { start: number; end: number }): Promise<PassedBody | null> {
    // The range is signed: it goes into the request as passedRange writes it.
    const { url, headers } = this.signed('GET', this.keyOf(path), { headers: { range: `bytes=${range.start}-${range.end}` } });
    if (url.protocol !== 'http:') return Promise.resolve(null);
    delete headers.range;
    return passedRange(this.name, url, headers, range, this.lookup);
  }

  async write(path: string, body: NodeJS.ReadableStream, size?: number): Promise<void> {
    const key = this.keyOf(path);
    if (size !== undefined && size <= S3_SINGLE_PUT_MAX) return this.putWhole(key, body as Readable, size);
    await this.multipart(key, body, size);
  }

  /** One PutObject streamed with its length: S3 keeps it only when every byte came. */
  private async putWhole(key: string, body: Readable | Buffer, size: number): Promise<void> {
    const res = await this.send('PUT', key, { headers: { 'content-length': String(size), 'content-type': 'application/octet-stream' }, body });
    if (res.statusCode !== 200) throw await this.failed(res);
    await res.body.dump().catch(() => undefined);
  }

  /**
   * A multipart upload, one part in memory at a time: parts of 8 MiB (larger for a known size that
   * would need more than 10 000; doubling every 2000 parts for an unknown one), completed when the
   * body ends, aborted when anything fails. A body of unknown size that ends before its first part
   * is full goes as one PutObject.
   */
  private async multipart(key: string, body: NodeJS.ReadableStream, size?: number): Promise<void> {
    const fixed = size !== undefined ? Math.max(S3_PART_SIZE, Math.ceil(size / MAX_PARTS)) : 0;
    const partSize = (n: number) => fixed || S3_PART_SIZE * 2 ** Math.floor((n - 1) / PARTS_PER_STEP);
    let uploadId: string | null = null;
    const etags: string[] = [];
    let pending: Buffer[] = [];
    let held = 0;
    let total = 0;
    const take = (n: number): Buffer => {
      const all = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
      pending = all.length > n ? [all.subarray(n)] : [];
      held = all.length - Math.min(n, all.length);
      return all.subarray(0, n);
    };
    try {
      for await (const c of body) {
        const chunk = typeof c === 'string' ? Buffer.from(c) : (c as Buffer);
        pending.push(chunk);
        held += chunk.length;
        total += chunk.length;
        while (held >= partSize(etags.length + 1)) {
          if (etags.length >= MAX_PARTS) throw this.down('file too large for one upload');
          uploadId ??= await this.startUpload(key);
          etags.push(await this.uploadPart(key, uploadId, etags.length + 1, take(partSize(etags.length + 1))));
        }
      }
      if (size !== undefined && total !== size) throw this.down(`the upload ended after ${total} of ${size} bytes`);
      if (uploadId === null) {
        // Taken first: take() empties `held`.
        const whole = take(held);
        return await this.putWhole(key, whole, whole.length);
      }
      if (held > 0 || etags.length === 0) etags.push(await this.uploadPart(key, uploadId, etags.length + 1, take(held)));
      await this.completeUpload(key, uploadId, etags);
    } catch (err) {
      if (uploadId !== null) await this.abortUpload(key, uploadId).catch(() => undefined);
      if (err instanceof MsgError) throw err;
      throw this.down(err instanceof Error ? err.message : String(err));
    }
  }

  private async startUpload(key: string): Promise<string> {
    const res = await this.send('POST', key, { query: { uploads: '' }, headers: { 'content-type': 'application/octet-stream' } });
    if (res.statusCode !== 200) throw await this.failed(res);
    const doc = await this.xml(res);
    const id = textIn(doc, 'UploadId');
    if (!id) throw this.errorIn(doc) ?? this.down('no UploadId in the answer');
    return id;
  }

  private async uploadPart(key: string, uploadId: string, n: number, data: Buffer): Promise<string> {
    const res = await this.send('PUT', key, { query: { partNumber: String(n), uploadId }, headers: { 'content-length': String(data.length) }, body: data });
    if (res.statusCode !== 200) throw await this.failed(res);
    await res.body.dump().catch(() => undefined);
    const etag = res.headers.etag;
    if (typeof etag !== 'string' || !etag) throw this.down(`no ETag for part ${n}`);
    return etag;
  }

  private async completeUpload(key: string, uploadId: string, etags: string[]): Promise<void> {
    const xml = `<?xml version="1.0" encoding="UTF-8"?><CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${etags
      .map((e, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${xmlEsc(e)}</ETag></Part>`)
      .join('')}</CompleteMultipartUpload>`;
    const res = await this.send('POST', key, { query: { uploadId }, headers: { 'content-type': 'application/xml' }, body: xml });
    if (res.statusCode !== 200) throw await this.failed(res);
    // A 200 can still carry an error, sent once S3 has finished trying.
    const err = this.errorIn(await this.xml(res));
    if (err) throw err;
  }

  private async abortUpload(key: string, uploadId: string): Promise<void> {
    const res = await this.send('DELETE', key, { query: { uploadId } });
    await res.body.dump().catch(() => undefined);
  }

  async mkdir(path: string): Promise<void> {
    // The root is there without a marker (and an empty key would name the bucket).
    if (this.keyOf(path) === '') return;
    await this.putWhole(this.keyOf(path, true), Buffer.alloc(0), 0);
  }

  async remove(path: string): Promise<void> {
    const key = this.keyOf(path);
    // S3's DELETE answers 204 for a key that is not there: ask first, as a file system would.
    const head = await this.send('HEAD', key);
    await head.body.dump().catch(() => undefined);
    if (head.statusCode === 404) throw new MsgError({ key: 'storageNotFound' });
    if (head.statusCode !== 200) throw this.down({ key: 'storageRemoteStatus', vars: { status: head.statusCode } });
    await this.deleteKey(key);
  }

  private async deleteKey(key: string): Promise<void> {
    const res = await this.send('DELETE', key);
    if (res.statusCode !== 204 && res.statusCode !== 200 && res.statusCode !== 404) throw await this.failed(res);
    await res.body.dump().catch(() => undefined);
  }

  /** Keys deleted by DeleteObjects, up to 1000 a request; a key it could not delete fails the whole. */
  private async deleteKeys(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      const batch = keys.slice(i, i + DELETE_BATCH);
      const xml = `<?xml version="1.0" encoding="UTF-8"?><Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Quiet>true</Quiet>${batch
        .map((k) => `<Object><Key>${xmlEsc(k)}</Key></Object>`)
        .join('')}</Delete>`;
      const headers = { 'content-type': 'application/xml', 'content-md5': createHash('md5').update(xml).digest('base64') };
      let res = await this.send('POST', null, { query: { delete: '' }, headers, body: xml });
      // 500 InternalError and 503 SlowDown say "try again" (S3's documented retryable errors); a
      // delete is the same when repeated. (s3rver also races between keys of one folder so.)
      for (let t = 1; t <= 3 && (res.statusCode === 500 || res.statusCode === 503); t++) {
        await res.body.dump().catch(() => undefined);
        await new Promise((r) => setTimeout(r, 100 * t));
        res = await this.send('POST', null, { query: { delete: '' }, headers, body: xml });
      }
      if (res.statusCode !== 200) throw await this.failed(res);
      const doc = await this.xml(res);
      const e = this.errorIn(doc);
      if (e) throw e;
      const errs = kids(doc, 'Error');
      if (errs.length) throw this.down(`${textIn(errs[0]!, 'Key')}: ${textIn(errs[0]!, 'Code')} (${errs.length} keys not deleted)`);
    }
  }

  async removeTree(path: string): Promise<void> {
    // Every key under the folder (its marker too), a page of listing at a time.
    for await (const objects of this.allObjects(this.keyOf(path, true))) if (objects.length) await this.deleteKeys(objects.map((o) => o.key));
  }

  /**
   * CopyObject then DeleteObject: a file is briefly under both names. A folder is every key under
   * it copied then all deleted: NOT atomic (a failure half way leaves some keys copied, and the
   * source whole). CopyObject takes objects up to 5 GiB; a larger one is copied in parts of 512 MiB
   * (UploadPartCopy), still on the server.
   */
  async rename(from: string, to: string): Promise<void> {
    const st = await this.stat(from);
    if (!st) throw new MsgError({ key: 'storageNotFound' });
    if (st.kind === 'file') {
      await this.copy(this.keyOf(from), this.keyOf(to), st.size);
      await this.deleteKey(this.keyOf(from));
      return;
    }
    const src = this.keyOf(from, true);
    const dst = this.keyOf(to, true);
    const all: string[] = [];
    for await (const objects of this.allObjects(src)) {
      for (const o of objects) await this.copy(o.key, dst + o.key.slice(src.length), o.size);
      all.push(...objects.map((o) => o.key));
    }
    await this.deleteKeys(all);
  }

  /** A server-side copy; past copyMax in parts. */
  private async copy(fromKey: string, toKey: string, size: number): Promise<void> {
    const source = `/${this.cfg.bucket}/${fromKey.split('/').map(rfc3986).join('/')}`;
    if (size > this.copyMax) return this.copyInParts(source, toKey, size);
    const res = await this.send('PUT', toKey, { headers: { 'x-amz-copy-source': source } });
    if (res.statusCode !== 200) throw await this.failed(res);
    const err = this.errorIn(await this.xml(res));
    if (err) throw err;
  }

  /** UploadPartCopy of each range, then the parts put together; aborted on any failure. */
  private async copyInParts(source: string, toKey: string, size: number): Promise<void> {
    const part = Math.max(this.copyPart, Math.ceil(size / MAX_PARTS));
    const uploadId = await this.startUpload(toKey);
    try {
      const etags: string[] = [];
      for (let at = 0; at < size; at += part) {
        const range = `bytes=${at}-${Math.min(at + part, size) - 1}`;
        const res = await this.send('PUT', toKey, { query: { partNumber: String(etags.length + 1), uploadId }, headers: { 'x-amz-copy-source': source, 'x-amz-copy-source-range': range } });
        if (res.statusCode !== 200) throw await this.failed(res);
        const doc = await this.xml(res);
        const etag = textIn(doc, 'ETag');
        if (!etag) throw this.errorIn(doc) ?? this.down(`no ETag for part ${etags.length + 1}`);
        etags.push(etag);
      }
      await this.completeUpload(toKey, uploadId, etags);
    } catch (err) {
      await this.abortUpload(toKey, uploadId).catch(() => undefined);
      throw err;
    }
  }
}
