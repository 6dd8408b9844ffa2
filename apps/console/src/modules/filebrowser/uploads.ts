/**
 * The upload queue: files (and files of dropped or picked folders, with their relative paths) sent
 * one after another in chunks through the daemon's resumable uploads, with progress per file and in
 * total. A dropped connection is resumed from the offset the daemon reports; cancel removes what
 * was sent. XMLHttpRequest, not fetch: it reports upload progress.
 */
import { FB_CHUNK, LANG_HEADER, TOKEN_HEADER, filebrowserRoutes, type FbUpload } from '@lucky/contracts';
import { api, call } from '../../api';
import { lang } from '../../i18n';
import { storage as local } from '../../storage';

export type UploadState = 'waiting' | 'running' | 'retrying' | 'done' | 'failed' | 'canceled';

export interface UploadItem {
  key: number;
  file: File;
  storage: string;
  /** Where it goes inside the storage. */
  path: string;
  size: number;
  sent: number;
  state: UploadState;
  error: string;
  attempt: number;
  id: string | null;
}

const R = filebrowserRoutes;
const RETRIES = 6;

type Listener = () => void;

export class UploadQueue {
  items: UploadItem[] = [];
  private listeners = new Set<Listener>();
  private running = false;
  private xhr: XMLHttpRequest | null = null;
  private seq = 0;
  /** Called after each finished file (the folder shown refreshes). */
  onDone: () => void = () => undefined;

  subscribe = (l: Listener) => {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  };

  /** A new array each change, for useSyncExternalStore. */
  snapshot = () => this.items;

  private emit(): void {
    this.items = [...this.items];
    for (const l of this.listeners) l();
  }

  private set(item: UploadItem, patch: Partial<UploadItem>): void {
    const i = this.items.findIndex((x) => x.key === item.key);
    if (i === -1) return;
    Object.assign(item, patch);
    this.items[i] = { ...item };
    this.emit();
  }

  add(storage: string, dir: string, files: Array<{ file: File; rel: string }>): void {
    for (const { file, rel } of files) {
      const path = `${dir === '/' ? '' : dir}/${rel.replace(/^\/+/, '')}`;
      this.items.push({ key: ++this.seq, file, storage, path, size: file.size, sent: 0, state: 'waiting', error: '', attempt: 0, id: null });
    }
    this.emit();
    void this.pump();
  }

  totals(): { sent: number; size: number } {
    let sent = 0;
    let size = 0;
    for (const i of this.items) {
      if (i.state === 'canceled') continue;
      sent += i.sent;
      size += i.size;
    }
    return { sent, size };
  }

  clearFinished(): void {
    this.items = this.items.filter((i) => i.state !== 'done' && i.state !== 'canceled');
    this.emit();
  }

  async cancel(item: UploadItem): Promise<void> {
    const wasRunning = item.state === 'running' || item.state === 'retrying';
    this.set(item, { state: 'canceled' });
    if (wasRunning) this.xhr?.abort();
    if (item.id) await call(R.uploadCancel, { params: { id: item.id } }, { silent: true }).catch(() => undefined);
  }

  resume(item: UploadItem): void {
    if (item.state !== 'failed') return;
    this.set(item, { state: 'waiting', error: '', attempt: 0 });
    void this.pump();
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (;;) {
        const next = this.items.find((i) => i.state === 'waiting');
        if (!next) break;
        await this.run(next);
      }
    } finally {
      this.running = false;
    }
  }

  private async run(item: UploadItem): Promise<void> {
    this.set(item, { state: 'running' });
    try {
      if (!item.id) {
        const c = await call(R.uploadCreate, { body: { storage: item.storage, path: item.path, size: item.size, overwrite: false } });
        this.set(item, { id: c.upload.id, sent: 0 });
      }
      let offset = item.sent;
      while (offset < item.size) {
        if ((item.state as UploadState) === 'canceled') return;
        const end = Math.min(item.size, offset + FB_CHUNK);
        try {
          offset = await this.chunk(item, offset, end);
          this.set(item, { sent: offset, attempt: 0, state: 'running' });
        } catch (err) {
          if (item.state === 'canceled') return;
          if ((err as { fatal?: boolean }).fatal || item.attempt >= RETRIES) throw err;
          // The connection dropped: wait, ask the daemon how far it got, go on from there.
          this.set(item, { state: 'retrying', attempt: item.attempt + 1 });
          await new Promise((r) => setTimeout(r, 500 * 2 ** Math.min(item.attempt, 4)));
          const st = await call(R.uploadStatus, { params: { id: item.id! } }, { silent: true }).catch(() => null);
          if (st) offset = st.upload.offset;
        }
      }
      if ((item.state as UploadState) === 'canceled') return;
      await call(R.uploadComplete, { params: { id: item.id! } });
      this.set(item, { state: 'done', sent: item.size });
      this.onDone();
    } catch (err) {
      if (item.state === 'canceled') return;
      this.set(item, { state: 'failed', error: (err as Error).message });
    }
  }

  /** One chunk; resolves the offset the daemon has after it. Rejects with `fatal` for a refusal that retrying cannot mend. */
  private chunk(item: UploadItem, from: number, to: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      this.xhr = xhr;
      xhr.open('PATCH', api.url(R.uploadChunk, { params: { id: item.id! }, query: { offset: from } }));
      const token = local.get('token');
      if (token) xhr.setRequestHeader(TOKEN_HEADER, token);
      xhr.setRequestHeader(LANG_HEADER, lang);
      xhr.setRequestHeader('content-type', 'application/octet-stream');
      xhr.upload.onprogress = (e) => {
        if (item.state === 'running' || item.state === 'retrying') this.set(item, { sent: from + e.loaded });
      };
      xhr.onerror = () => reject(new Error('network'));
      xhr.onabort = () => reject(new Error('aborted'));
      xhr.ontimeout = () => reject(new Error('timeout'));
      xhr.onload = () => {
        let body: { ret: number; msg?: string; upload?: FbUpload };
        try {
          body = JSON.parse(xhr.responseText);
        } catch {
          return reject(new Error(`HTTP ${xhr.status}`));
        }
        if (body.ret === 0 && body.upload) return resolve(body.upload.offset);
        // An offset the daemon does not have (a chunk half-written when the connection dropped) is mended by asking it.
        const e = Object.assign(new Error(body.msg ?? `ret ${body.ret}`), { fatal: body.ret !== 1 || !/offset|位置/.test(body.msg ?? '') });
        reject(e);
      };
      xhr.send(item.file.slice(from, to));
    });
  }
}

/** The files of a drop, folders walked (webkitGetAsEntry), each with its path relative to what was dropped. */
export async function droppedFiles(dt: DataTransfer): Promise<Array<{ file: File; rel: string }>> {
  const entries = [...dt.items].map((i) => (i.kind === 'file' ? i.webkitGetAsEntry?.() : null)).filter((e): e is FileSystemEntry => !!e);
  if (entries.length === 0) return [...dt.files].map((file) => ({ file, rel: file.name }));
  const out: Array<{ file: File; rel: string }> = [];
  const walk = async (e: FileSystemEntry, prefix: string): Promise<void> => {
    if (e.isFile) {
      const file = await new Promise<File>((res, rej) => (e as FileSystemFileEntry).file(res, rej));
      out.push({ file, rel: `${prefix}${e.name}` });
    } else if (e.isDirectory) {
      const reader = (e as FileSystemDirectoryEntry).createReader();
      for (;;) {
        const batch = await new Promise<FileSystemEntry[]>((res, rej) => reader.readEntries(res, rej));
        if (batch.length === 0) break;
        for (const c of batch) await walk(c, `${prefix}${e.name}/`);
      }
    }
  };
  for (const e of entries) await walk(e, '');
  return out;
}
