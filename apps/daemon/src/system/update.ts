/**
 * Updates from an uploaded release archive (see scripts/release.mjs): a gzipped tar with
 * lucky-release.json listing every file and its SHA-256. It is unpacked as it streams in, into a
 * folder of its own in the data dir, verified whole, and only then becomes the staged update;
 * applying swaps each built directory in with renames, putting everything back on failure.
 */
import { createHash, randomBytes } from 'node:crypto';
import { accessSync, constants, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, open, rm } from 'node:fs/promises';
import { dirname, join, normalize } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { z } from 'zod';
import { TarFormatError, TarReader, TarTooLarge, type TarSink } from './tar.js';

export const RELEASE_MANIFEST = 'lucky-release.json';
/** What a release replaces, relative to the install root. Dependencies are not shipped: see `lockfile`. */
export const RELEASE_DIRS = ['apps/daemon/dist', 'apps/console/dist', 'packages/contracts/dist'] as const;
/** Bound on an archive's unpacked bytes (a release is a few MB): past it, it is a zip bomb or not ours. */
export const MAX_UNPACKED = 256 * 1024 * 1024;
/** The manifest is the one entry read into memory. */
const MAX_MANIFEST = 16 * 1024 * 1024;

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

export const ZReleaseManifest = z.object({
  name: z.literal('lucky'),
  version: z.string().regex(/^\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$/),
  created: z.number(),
  /** SHA-256 of pnpm-lock.yaml it was built with: a release needing other dependencies is refused. */
  lockfile: z.string(),
  files: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/)),
});
export type ReleaseManifest = z.infer<typeof ZReleaseManifest>;

export class UpdateError extends Error {}

/** The archive unpacks to more than `max` bytes. */
export class UpdateTooLarge extends UpdateError {
  constructor(readonly max: number) {
    super(`more than ${max} bytes when unpacked`);
  }
}

export function lockfileHash(root: string): string {
  const f = join(root, 'pnpm-lock.yaml');
  return existsSync(f) ? sha256(readFileSync(f)) : '';
}

function safePath(p: string): boolean {
  if (p.startsWith('/') || p.includes('\\') || p.includes('\0')) return false;
  const n = normalize(p);
  return n === p && !n.split('/').includes('..') && RELEASE_DIRS.some((d) => n.startsWith(d + '/'));
}

export interface StagedUpdate {
  version: string;
  current: string;
  files: number;
  size: number;
}

interface Unpacked {
  manifest?: ReleaseManifest;
  /** Every file written, with its SHA-256 and size, computed on its way to disk. */
  files: Map<string, { sha256: string; size: number }>;
}

function parseManifest(data: Buffer): ReleaseManifest {
  try {
    return ZReleaseManifest.parse(JSON.parse(data.toString('utf8')));
  } catch {
    throw new UpdateError(`${RELEASE_MANIFEST} is not a Lucky release manifest`);
  }
}

function memorySink(done: (data: Buffer) => void): TarSink {
  const chunks: Buffer[] = [];
  return {
    write: (chunk) => void chunks.push(Buffer.from(chunk)),
    end: () => done(Buffer.concat(chunks)),
  };
}

/** Writes one file while hashing it; `done` gets its SHA-256 and size once it is closed. */
async function fileSink(target: string, done: (sha: string, size: number) => void): Promise<TarSink> {
  await mkdir(dirname(target), { recursive: true });
  const handle = await open(target, 'wx');
  const hash = createHash('sha256');
  let size = 0;
  return {
    async write(chunk) {
      hash.update(chunk);
      size += chunk.length;
      for (let off = 0; off < chunk.length; ) off += (await handle.write(chunk, off)).bytesWritten;
    },
    async end() {
      await handle.close();
      done(hash.digest('hex'), size);
    },
    abort: () => handle.close(),
  };
}

/** What a failure while unpacking means to the user; anything else (a full disk) is not their archive's fault. */
function explainUnpackError(err: unknown): unknown {
  if (err instanceof UpdateError) return err;
  if (err instanceof TarTooLarge) return new UpdateTooLarge(err.max);
  if (err instanceof TarFormatError) return new UpdateError(`not a valid tar archive (${err.message})`);
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('Z_')) return new UpdateError(`not a gzip file (${(err as Error).message})`);
  return err;
}

/**
 * Unpacks an archive into `dir` as it streams in. Each entry is refused before anything is
 * written when its path is unsafe, repeated, or (once the manifest has been read) not listed.
 */
async function unpack(archive: Readable, dir: string): Promise<Unpacked> {
  const out: Unpacked = { files: new Map() };
  const seen = new Set<string>();
  const reader = new TarReader({
    maxBytes: MAX_UNPACKED,
    file: (path, size) => {
      if (seen.has(path)) throw new UpdateError('a file appears twice');
      seen.add(path);
      if (path === RELEASE_MANIFEST) {
        if (size > MAX_MANIFEST) throw new UpdateError(`${RELEASE_MANIFEST} is not a Lucky release manifest`);
        return memorySink((data) => (out.manifest = parseManifest(data)));
      }
      if (!safePath(path)) throw new UpdateError(`unsafe or unexpected path: ${path}`);
      if (out.manifest && !(path in out.manifest.files)) throw new UpdateError(`file not in the manifest: ${path}`);
      return fileSink(join(dir, path), (sha, n) => out.files.set(path, { sha256: sha, size: n }));
    },
  });
  try {
    await pipeline(archive, createGunzip(), reader);
  } catch (err) {
    throw explainUnpackError(err);
  }
  return out;
}

/** The checks that need the whole archive: every listed file there with its checksum, nothing else. */
function verify(unpacked: Unpacked, ourLockfile: string): ReleaseManifest {
  const { manifest, files } = unpacked;
  if (!manifest) throw new UpdateError(`${RELEASE_MANIFEST} is missing: not a Lucky release`);
  const listed = Object.keys(manifest.files);
  if (listed.length === 0) throw new UpdateError('the release lists no files');
  for (const p of listed) if (!safePath(p)) throw new UpdateError(`unsafe or unexpected path: ${p}`);
  for (const p of files.keys()) if (!(p in manifest.files)) throw new UpdateError(`file not in the manifest: ${p}`);
  for (const p of listed) {
    const f = files.get(p);
    if (!f) throw new UpdateError(`file missing: ${p}`);
    if (f.sha256 !== manifest.files[p]) throw new UpdateError(`checksum mismatch: ${p}`);
  }
  for (const d of RELEASE_DIRS) {
    if (!listed.some((p) => p.startsWith(d + '/'))) throw new UpdateError(`incomplete release: nothing under ${d}`);
  }
  if (ourLockfile && manifest.lockfile && ourLockfile !== manifest.lockfile) {
    throw new UpdateError('it was built with other dependencies; update with a full install instead');
  }
  return manifest;
}

export class Updater {
  /** Uploads and archives being unpacked live here until they are verified or refused. */
  readonly workDir: string;
  private stagingDir: string;

  constructor(
    private installRoot: string,
    dataDir: string,
    private currentVersion: string,
  ) {
    this.workDir = join(dataDir, 'update');
    this.stagingDir = join(this.workDir, 'staged');
    this.removeLeftovers();
  }

  /** Unpacks and verifies an archive completely, then stages it; nothing outside the data dir's update folder is touched. */
  async stage(archive: Readable): Promise<StagedUpdate> {
    const incoming = join(this.workDir, `incoming-${randomBytes(8).toString('hex')}`);
    try {
      await mkdir(incoming, { recursive: true, mode: 0o700 });
      const unpacked = await unpack(archive, incoming);
      const manifest = verify(unpacked, lockfileHash(this.installRoot));
      const info: StagedUpdate = {
        version: manifest.version,
        current: this.currentVersion,
        files: unpacked.files.size,
        size: [...unpacked.files.values()].reduce((n, f) => n + f.size, 0),
      };
      writeFileSync(join(incoming, RELEASE_MANIFEST), JSON.stringify({ ...manifest, staged: info }));
      this.cancel();
      renameSync(incoming, this.stagingDir);
      return info;
    } finally {
      await rm(incoming, { recursive: true, force: true });
    }
  }

  /** What a crash in the middle of an upload or an unpack left behind. */
  private removeLeftovers(): void {
    if (!existsSync(this.workDir)) return;
    for (const name of readdirSync(this.workDir)) {
      if (/^(incoming|upload)-/.test(name)) rmSync(join(this.workDir, name), { recursive: true, force: true });
    }
  }

  staged(): StagedUpdate | undefined {
    const f = join(this.stagingDir, RELEASE_MANIFEST);
    if (!existsSync(f)) return undefined;
    return (JSON.parse(readFileSync(f, 'utf8')) as { staged: StagedUpdate }).staged;
  }

  cancel(): boolean {
    const had = existsSync(this.stagingDir);
    rmSync(this.stagingDir, { recursive: true, force: true });
    return had;
  }

  /** Swaps the staged directories in. All or nothing: a failed rename puts back what was moved. */
  apply(): StagedUpdate {
    const info = this.staged();
    if (!info) throw new UpdateError('nothing staged');
    for (const d of RELEASE_DIRS) {
      const parent = dirname(join(this.installRoot, d));
      try {
        accessSync(parent, constants.W_OK);
      } catch {
        throw new UpdateError(`not writable: ${parent}`);
      }
    }
    // Copy next to each target first (same filesystem), so the swap itself is only renames.
    for (const d of RELEASE_DIRS) {
      const next = join(this.installRoot, `${d}.next`);
      rmSync(next, { recursive: true, force: true });
      renameOrCopy(join(this.stagingDir, d), next);
    }
    const done: string[] = [];
    try {
      for (const d of RELEASE_DIRS) {
        const target = join(this.installRoot, d);
        rmSync(`${target}.old`, { recursive: true, force: true });
        if (existsSync(target)) renameSync(target, `${target}.old`);
        renameSync(`${target}.next`, target);
        done.push(d);
      }
    } catch (err) {
      for (const d of done.reverse()) {
        const target = join(this.installRoot, d);
        rmSync(target, { recursive: true, force: true });
        if (existsSync(`${target}.old`)) renameSync(`${target}.old`, target);
      }
      throw new UpdateError(`could not swap the files in: ${(err as Error).message}`);
    }
    this.cancel();
    return info;
  }
}

function renameOrCopy(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch {
    // The data dir may sit on another filesystem than the program.
    copyTree(from, to);
  }
}

function copyTree(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  // The staged tree holds regular files only.
  cpSync(from, to, { recursive: true });
}
