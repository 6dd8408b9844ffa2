/** A file's sha256, and a whole tree's files by relative path with theirs: what a round trip must give back. */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** Every file under `dir` by its relative path, with its sha256. */
export function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[relative(dir, p)] = sha(p);
    }
  };
  walk(dir);
  return out;
}
