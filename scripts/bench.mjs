// `npm run bench [name...]`: build, then run bench/<name>/run.mjs for each name (all when none given).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { build, env, log, root } from './lib/bootstrap.mjs';

build();
const all = readdirSync(join(root, 'bench'), { withFileTypes: true })
  .filter((e) => e.isDirectory() && existsSync(join(root, 'bench', e.name, 'run.mjs')))
  .map((e) => e.name);
const names = process.argv.length > 2 ? process.argv.slice(2) : all;
let failed = 0;
for (const name of names) {
  log(`bench ${name}`);
  const r = spawnSync(process.execPath, [join(root, 'bench', name, 'run.mjs')], { cwd: root, stdio: 'inherit', env });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
