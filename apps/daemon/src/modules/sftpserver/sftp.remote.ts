/**
 * SFTP's open files on a remote storage. SFTP reads and writes at offsets, many requests in
 * flight; a remote (WebDAV, SFTP, S3) is read and written as streams. A reader keeps one stream
 * open and answers the reads in the order they come while they follow each other (a client
 * downloading), opening a new range where one jumps; a writer takes the writes in order into one
 * upload stream and refuses a write anywhere else (a remote cannot change a file in place). The
 * upload becomes the file when the handle is closed, and is dropped (nothing under the name) when
 * the session ends without closing it.
 */
import { PassThrough } from 'node:stream';
import type { RemoteFs } from '../../core/services/storages.js';

/** Requests on one handle run one after another, in the order they arrived. */
class Queue {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(f: () => Promise<T>): Promise<T> {
    const next = this.tail.then(f);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

export class RemoteReader {
  private readonly queue = new Queue();
  private stream: NodeJS.ReadableStream | null = null;
  /** The offset the stream is at (its next byte). */
  private pos = -1;
  private buffered: Buffer[] = [];
  private ended = false;

  constructor(
    private readonly remote: RemoteFs,
    private readonly path: string,
    readonly size: number,
  ) {}

  /** Up to `len` bytes at `offset`; an empty buffer at the end of the file. */
  read(offset: number, len: number): Promise<Buffer> {
    return this.queue.run(async () => {
      if (offset >= this.size) return Buffer.alloc(0);
      if (offset !== this.pos || !this.stream) await this.open(offset);
      const out = await this.take(Math.min(len, this.size - offset));
      this.pos += out.length;
      return out;
    });
  }

  private async open(offset: number): Promise<void> {
    this.close();
    this.stream = await this.remote.read(this.path, { start: offset });
    this.pos = offset;
    this.buffered = [];
    this.ended = false;
    this.stream.on('end', () => (this.ended = true));
    this.stream.on('error', () => (this.ended = true));
  }

  /** `n` bytes from the stream (fewer only at its end). */
  private async take(n: number): Promise<Buffer> {
    const s = this.stream!;
    let have = this.buffered.reduce((a, b) => a + b.length, 0);
    while (have < n && !this.ended) {
      const chunk = s.read() as Buffer | null;
      if (chunk) {
        this.buffered.push(chunk);
        have += chunk.length;
        continue;
      }
      await new Promise<void>((resolve, reject) => {
        const done = () => {
          s.off('readable', done);
          s.off('end', done);
          s.off('error', fail);
          resolve();
        };
        const fail = (e: Error) => {
          s.off('readable', done);
          s.off('end', done);
          reject(e);
        };
        s.once('readable', done);
        s.once('end', done);
        s.once('error', fail);
      });
    }
    const all = Buffer.concat(this.buffered);
    this.buffered = all.length > n ? [all.subarray(n)] : [];
    return all.subarray(0, n);
  }

  close(): void {
    const s = this.stream as (NodeJS.ReadableStream & { destroy?: () => void }) | null;
    s?.destroy?.();
    this.stream = null;
  }
}

export class RemoteWriter {
  private readonly queue = new Queue();
  private readonly body = new PassThrough({ highWaterMark: 1 << 20 });
  private readonly done: Promise<void>;
  private failed: Error | null = null;
  /** Bytes taken so far: the only offset the next write may have. */
  pos = 0;

  constructor(remote: RemoteFs, path: string) {
    this.done = remote.write(path, this.body);
    // Seen by the next write; the promise itself is awaited at close.
    this.done.catch((e: Error) => (this.failed = e));
  }

  write(offset: number, data: Buffer): Promise<void> {
    return this.queue.run(async () => {
      if (this.failed) throw this.failed;
      if (offset !== this.pos) throw new OutOfOrder();
      this.pos += data.length;
      // The remote may stop taking bytes for good (it went away): then its failure, not a wait forever.
      if (!this.body.write(data)) await Promise.race([new Promise<void>((resolve) => this.body.once('drain', resolve)), this.done]);
      if (this.failed) throw this.failed;
    });
  }

  /** The upload finished: the file is there when this resolves. */
  finish(): Promise<void> {
    return this.queue.run(async () => {
      this.body.end();
      await this.done;
    });
  }

  /** The upload given up: the remote keeps nothing under the name. */
  abort(): void {
    this.body.destroy(new Error('upload abandoned'));
  }
}

/** A write at another offset than the end of what was written. */
export class OutOfOrder extends Error {}
