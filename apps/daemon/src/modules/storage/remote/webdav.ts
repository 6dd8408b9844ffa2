/**
 * A remote WebDAV server as a storage (RFC 4918 as Nextcloud, Apache mod_dav, rclone serve webdav
 * and another Lucky speak it): PROPFIND for listings, GET with Range, PUT streamed, MKCOL, MOVE,
 * DELETE, over one keep-alive connection pool per storage. An upload goes to a temporary name in the
 * same folder and is moved over the real one when complete, so an interrupted one never shows as the
 * file. Basic authentication (over TLS unless the operator chose otherwise); Digest is not spoken.
 */
import type { Readable } from 'node:stream';
import { request, type Agent, type Dispatcher } from 'undici';
import type { Msg, RemoteWebdav } from '@lucky/contracts';
import { STORAGE_TEMP_PREFIX, type RemoteEntry, type RemoteFs, type RemoteStat } from '../../../core/services/storages.js';
import { child, DAV, elements, parseXml, textOf, type XmlElement } from '../../../lib/xml.js';
import { MsgError } from '../../../lib/msgerror.js';
import { randomBytes } from 'node:crypto';
import type { PassedBody } from '../../../core/filebody.js';
import { remoteDown } from './down.js';
import { passedRange, remoteAgent } from './http.js';

/** A listing larger than this is refused rather than parsed (a folder of about 50 000 names). */
const MAX_LISTING_BYTES = 32 * 1024 * 1024;

const PROPFIND_BODY =
  '<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/><D:getcontentlength/><D:getlastmodified/></D:prop></D:propfind>';

type Method = Dispatcher.HttpMethod;


export class RemoteWebdavFs implements RemoteFs {
  private readonly agent: Agent;
  private readonly base: URL;
  private readonly auth: string | null;

  constructor(
    private readonly name: string,
    cfg: RemoteWebdav,
  ) {
    this.base = new URL(cfg.url.endsWith('/') ? cfg.url : `${cfg.url}/`);
    this.auth = cfg.username ? `Basic ${Buffer.from(`${cfg.username}:${cfg.password}`).toString('base64')}` : null;
    this.agent = remoteAgent({ rejectUnauthorized: !cfg.skipTlsVerify });
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  /** The URL of a clean path inside the storage: each segment encoded, a folder with its slash. */
  private url(path: string, dir = false): string {
    const rel = path
      .split('/')
      .filter((s) => s !== '')
      .map(encodeURIComponent)
      .join('/');
    return new URL(rel + (dir && rel ? '/' : ''), this.base).href;
  }

  private down(detail: Msg | string): MsgError {
    return remoteDown(this.name, detail);
  }

  private async send(method: Method | string, url: string, o: { headers?: Record<string, string>; body?: string | Readable | null } = {}): Promise<Dispatcher.ResponseData> {
    try {
      return await request(url, {
        dispatcher: this.agent,
        method: method as Method,
        headers: { ...(this.auth ? { authorization: this.auth } : {}), ...o.headers },
        body: o.body ?? null,
      });
    } catch (err) {
      throw this.down(err instanceof Error ? err.message : String(err));
    }
  }

  /** A status the remote answered that means it failed (the body is dropped). */
  private async failed(res: Dispatcher.ResponseData): Promise<MsgError> {
    await res.body.dump().catch(() => undefined);
    return this.down({ key: 'storageRemoteStatus', vars: { status: res.statusCode } });
  }

  private async propfind(path: string, depth: '0' | '1'): Promise<XmlElement[] | null> {
    const res = await this.send('PROPFIND', this.url(path, true), { headers: { depth, 'content-type': 'application/xml; charset=utf-8' }, body: PROPFIND_BODY });
    if (res.statusCode === 404) {
      await res.body.dump();
      return null;
    }
    if (res.statusCode !== 207) throw await this.failed(res);
    const chunks: Buffer[] = [];
    let n = 0;
    for await (const c of res.body) {
      n += (c as Buffer).length;
      if (n > MAX_LISTING_BYTES) {
        res.body.destroy();
        throw this.down('listing too large');
      }
      chunks.push(c as Buffer);
    }
    let doc: XmlElement;
    try {
      doc = parseXml(Buffer.concat(chunks).toString('utf8'));
    } catch (err) {
      throw this.down(`bad multistatus: ${(err as Error).message}`);
    }
    return elements(doc).filter((e) => e.ns === DAV && e.name === 'response');
  }

  /** One `<response>` as a name and its facts; null when it carries no 200 propstat. */
  private entryOf(resp: XmlElement): (RemoteEntry & { href: string }) | null {
    const hrefEl = child(resp, DAV, 'href');
    if (!hrefEl) return null;
    let href: string;
    try {
      href = decodeURIComponent(new URL(textOf(hrefEl).trim(), this.base).pathname);
    } catch {
      return null;
    }
    const ok = elements(resp).find((p) => p.ns === DAV && p.name === 'propstat' && /\s200\s/.test(` ${textOf(child(p, DAV, 'status') ?? p).trim()} `));
    const prop = ok && child(ok, DAV, 'prop');
    if (!prop) return null;
    const rt = child(prop, DAV, 'resourcetype');
    const dir = !!rt && !!child(rt, DAV, 'collection');
    const size = Number(textOf(child(prop, DAV, 'getcontentlength') ?? prop).trim()) || 0;
    const lm = Date.parse(textOf(child(prop, DAV, 'getlastmodified') ?? prop).trim());
    const trimmed = href.endsWith('/') && href.length > 1 ? href.slice(0, -1) : href;
    const name = trimmed.slice(trimmed.lastIndexOf('/') + 1);
    return { href: trimmed, name, kind: dir ? 'dir' : 'file', size: dir ? 0 : size, mtimeMs: Number.isFinite(lm) ? lm : 0 };
  }

  async stat(path: string): Promise<RemoteStat | null> {
    const rs = await this.propfind(path, '0');
    const e = rs?.[0] ? this.entryOf(rs[0]) : null;
    return e ? { kind: path === '/' ? 'dir' : e.kind, size: e.size, mtimeMs: e.mtimeMs } : null;
  }

  async list(path: string): Promise<RemoteEntry[]> {
    const rs = await this.propfind(path, '1');
    if (!rs) throw new MsgError({ key: 'storageNotFound' });
    const self = decodeURIComponent(new URL(this.url(path, true)).pathname).replace(/\/$/, '');
    const out: RemoteEntry[] = [];
    for (const r of rs) {
      const e = this.entryOf(r);
      if (!e || e.href === self || e.name === '' || e.name.startsWith(STORAGE_TEMP_PREFIX)) continue;
      out.push({ name: e.name, kind: e.kind, size: e.size, mtimeMs: e.mtimeMs });
    }
    return out;
  }

  async read(path: string, range?: { start: number; end?: number }): Promise<NodeJS.ReadableStream> {
    const headers: Record<string, string> = range ? { range: `bytes=${range.start}-${range.end ?? ''}` } : {};
    const res = await this.send('GET', this.url(path), { headers });
    if (res.statusCode === 404) {
      await res.body.dump();
      throw new MsgError({ key: 'storageNotFound' });
    }
    if (range && range.start > 0 && res.statusCode !== 206) throw await this.failed(res);
    if (res.statusCode !== 200 && res.statusCode !== 206) throw await this.failed(res);
    return res.body;
  }

  readRaw(path: string, range: { start: number; end: number }): Promise<PassedBody | null> {
    if (this.base.protocol !== 'http:') return Promise.resolve(null);
    return passedRange(this.name, new URL(this.url(path)), this.auth ? { authorization: this.auth } : {}, range);
  }

  async write(path: string, body: NodeJS.ReadableStream, size?: number): Promise<void> {
    const slash = path.lastIndexOf('/');
    const temp = `${path.slice(0, slash)}/${STORAGE_TEMP_PREFIX}${randomBytes(6).toString('hex')}`;
    const headers: Record<string, string> = { 'content-type': 'application/octet-stream', ...(size !== undefined ? { 'content-length': String(size) } : {}) };
    let res: Dispatcher.ResponseData;
    try {
      res = await this.send('PUT', this.url(temp), { headers, body: body as Readable });
    } catch (err) {
      this.dropTemp(temp);
      throw err;
    }
    if (res.statusCode >= 300) {
      const e = await this.failed(res);
      this.dropTemp(temp);
      throw e;
    }
    await res.body.dump();
    try {
      await this.move(temp, path, true);
    } catch (err) {
      this.dropTemp(temp);
      throw err;
    }
  }

  /**
   * Removes an upload's temporary name now and once more a little later: a server may still be
   * finishing the PUT we cut (rclone writes it out after our DELETE came). Hidden from listings
   * either way; this only gives the space back.
   */
  private dropTemp(temp: string): void {
    void this.remove(temp).catch(() => undefined);
    setTimeout(() => void this.remove(temp).catch(() => undefined), 2000).unref();
  }

  async mkdir(path: string): Promise<void> {
    const res = await this.send('MKCOL', this.url(path, true));
    if (res.statusCode !== 201) throw await this.failed(res);
    await res.body.dump();
  }

  async remove(path: string): Promise<void> {
    const res = await this.send('DELETE', this.url(path));
    if (res.statusCode === 404) {
      await res.body.dump();
      throw new MsgError({ key: 'storageNotFound' });
    }
    if (res.statusCode >= 300) throw await this.failed(res);
    await res.body.dump();
  }

  async removeTree(path: string): Promise<void> {
    // DELETE of a collection takes everything in it (RFC 4918 9.6.1).
    const res = await this.send('DELETE', this.url(path, true));
    if (res.statusCode >= 300 && res.statusCode !== 404) throw await this.failed(res);
    await res.body.dump();
  }

  async rename(from: string, to: string): Promise<void> {
    const st = await this.stat(from);
    if (!st) throw new MsgError({ key: 'storageNotFound' });
    await this.move(from, to, true, st.kind === 'dir');
  }

  private async move(from: string, to: string, overwrite: boolean, dir = false): Promise<void> {
    const res = await this.send('MOVE', this.url(from, dir), { headers: { destination: this.url(to, dir), overwrite: overwrite ? 'T' : 'F' } });
    if (res.statusCode !== 201 && res.statusCode !== 204) throw await this.failed(res);
    await res.body.dump();
  }
}
