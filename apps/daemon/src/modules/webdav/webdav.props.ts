/**
 * Dead properties (PROPPATCH): a JSON file per storage under the module's data directory, keyed by
 * the path inside the storage, so the storage's own directory never gets sidecar files a user would
 * see. Each property is kept as self-contained XML text. Moved, copied and deleted with the
 * resource. Written atomically (temp, fsync, rename); a write that fails leaves the previous file.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { isUnder } from './webdav.locks.js';

/** Property name (`{ns}name`) → XML text of the whole property element. */
export type PropMap = Record<string, string>;

export const propKey = (ns: string, name: string) => `{${ns}}${name}`;

export class DeadProps {
  private cache = new Map<string, Record<string, PropMap>>();
  private writing = new Map<string, Promise<void>>();

  constructor(private readonly dir: string) {}

  private file(storage: string): string {
    return join(this.dir, `${storage.replace(/[^A-Za-z0-9_-]/g, '_')}.json`);
  }

  private load(storage: string): Record<string, PropMap> {
    let t = this.cache.get(storage);
    if (!t) {
      try {
        t = JSON.parse(readFileSync(this.file(storage), 'utf8')) as Record<string, PropMap>;
      } catch {
        t = {};
      }
      this.cache.set(storage, t);
    }
    return t;
  }

  /** Saves one storage's table; writes run one after another so the last state always wins. */
  private save(storage: string): Promise<void> {
    const next = (this.writing.get(storage) ?? Promise.resolve()).then(async () => {
      mkdirSync(this.dir, { recursive: true });
      const target = this.file(storage);
      const tmp = `${target}.tmp`;
      const fh = await open(tmp, 'w');
      try {
        await fh.writeFile(JSON.stringify(this.load(storage)));
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(tmp, target);
    });
    this.writing.set(storage, next.catch(() => undefined));
    return next;
  }

  get(storage: string, path: string): PropMap {
    return this.load(storage)[path] ?? {};
  }

  async set(storage: string, path: string, props: PropMap): Promise<void> {
    const t = this.load(storage);
    if (Object.keys(props).length) t[path] = props;
    else delete t[path];
    await this.save(storage);
  }

  /** The resource and everything below it is gone. */
  async remove(storage: string, path: string): Promise<void> {
    const t = this.load(storage);
    let changed = false;
    for (const p of Object.keys(t))
      if (isUnder(p, path)) {
        delete t[p];
        changed = true;
      }
    if (changed) await this.save(storage);
  }

  /** Copies (or moves) the properties of a tree to its new place; what was at the target is replaced. */
  async transfer(from: { storage: string; path: string }, to: { storage: string; path: string }, move: boolean): Promise<void> {
    const src = this.load(from.storage);
    const dst = this.load(to.storage);
    const moving: Array<[string, PropMap]> = Object.entries(src).filter(([p]) => isUnder(p, from.path));
    for (const p of Object.keys(dst)) if (isUnder(p, to.path)) delete dst[p];
    if (move) for (const [p] of moving) delete src[p];
    for (const [p, v] of moving) dst[to.path + p.slice(from.path.length)] = { ...v };
    await this.save(from.storage);
    if (to.storage !== from.storage) await this.save(to.storage);
  }
}
