/**
 * Updates from an uploaded release archive (see scripts/release.mjs): a gzipped tar with
 * lucky-release.json listing every file and its SHA-256. It is verified whole and staged in the
 * data dir; applying swaps each built directory in with renames, putting everything back on failure.
 */
import { createHash } from 'node:crypto';
import { accessSync, constants, cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { z } from 'zod';
import { readTar } from './tar.js';

export const RELEASE_MANIFEST = 'lucky-release.json';
/** What a release replaces, relative to the install root. Dependencies are not shipped: see `lockfile`. */
export const RELEASE_DIRS = ['apps/daemon/dist', 'apps/console/dist', 'packages/contracts/dist'] as const;
const MAX_UNPACKED = 512 * 1024 * 1024;

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

export class Updater {
  private stagingDir: string;

  constructor(
    private installRoot: string,
    dataDir: string,
    private currentVersion: string,
  ) {
    this.stagingDir = join(dataDir, 'update', 'staged');
  }

  /** Verifies an archive completely and stages it; nothing outside the staging dir is touched. */
  stage(archive: Buffer): StagedUpdate {
    let tar: Buffer;
    try {
      tar = gunzipSync(archive, { maxOutputLength: MAX_UNPACKED });
    } catch {
      throw new UpdateError('not a gzip file');
    }
    let entries;
    try {
      entries = readTar(tar);
    } catch (err) {
      throw new UpdateError(`not a valid tar archive (${(err as Error).message})`);
    }
    const manifestEntry = entries.find((e) => e.path === RELEASE_MANIFEST);
    if (!manifestEntry) throw new UpdateError(`${RELEASE_MANIFEST} is missing: not a Lucky release`);
    let manifest: ReleaseManifest;
    try {
      manifest = ZReleaseManifest.parse(JSON.parse(manifestEntry.data.toString('utf8')));
    } catch {
      throw new UpdateError(`${RELEASE_MANIFEST} is not a Lucky release manifest`);
    }
    const files = entries.filter((e) => e.path !== RELEASE_MANIFEST);
    const listed = Object.keys(manifest.files);
    if (listed.length === 0) throw new UpdateError('the release lists no files');
    for (const p of listed) if (!safePath(p)) throw new UpdateError(`unsafe or unexpected path: ${p}`);
    const byPath = new Map(files.map((f) => [f.path, f]));
    if (byPath.size !== files.length) throw new UpdateError('a file appears twice');
    for (const f of files) if (!(f.path in manifest.files)) throw new UpdateError(`file not in the manifest: ${f.path}`);
    for (const p of listed) {
      const f = byPath.get(p);
      if (!f) throw new UpdateError(`file missing: ${p}`);
      if (sha256(f.data) !== manifest.files[p]) throw new UpdateError(`checksum mismatch: ${p}`);
    }
    for (const d of RELEASE_DIRS) {
      if (!listed.some((p) => p.startsWith(d + '/'))) throw new UpdateError(`incomplete release: nothing under ${d}`);
    }
    const ours = lockfileHash(this.installRoot);
    if (ours && manifest.lockfile && ours !== manifest.lockfile) {
      throw new UpdateError('it was built with other dependencies; update with a full install instead');
    }

    this.cancel();
    for (const f of files) {
      const target = join(this.stagingDir, f.path);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, f.data);
    }
    const info: StagedUpdate = {
      version: manifest.version,
      current: this.currentVersion,
      files: files.length,
      size: files.reduce((n, f) => n + f.data.length, 0),
    };
    writeFileSync(join(this.stagingDir, RELEASE_MANIFEST), JSON.stringify({ ...manifest, staged: info }));
    return info;
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
