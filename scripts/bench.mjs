// `npm run bench [name...]`: install the Debian packages the chosen benchmarks need (bench/packages.mjs,
// only those missing), build, then run bench/<name>/run.mjs for each name (all when none given).
// `npm run bench -- --install-only [name...]` stops after the packages, saying what is still missing.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { build, env, log, root } from './lib/bootstrap.mjs';
import { installBenchPackages } from '../bench/packages.mjs';

const args = process.argv.slice(2);
const installOnly = args.includes('--install-only');
const all = readdirSync(join(root, 'bench'), { withFileTypes: true })
  .filter((e) => e.isDirectory() && existsSync(join(root, 'bench', e.name, 'run.mjs')))
  .map((e) => e.name);
const chosen = args.filter((a) => a !== '--install-only');
const unknown = chosen.filter((n) => !all.includes(n));
if (unknown.length) {
  log(`no benchmark named ${unknown.join(', ')} (there are: ${all.join(', ')})`);
  process.exit(2);
}
const names = chosen.length ? chosen : all;

const still = installBenchPackages(names);
if (still.length) log(`still missing: ${still.join(', ')}; the benchmarks that need them will stop`);
if (installOnly) {
  if (!still.length) log(`the packages of ${names.join(', ')} are installed`);
  process.exit(still.length ? 1 : 0);
}

build();
let failed = 0;
for (const name of names) {
  log(`bench ${name}`);
  const r = spawnSync(process.execPath, [join(root, 'bench', name, 'run.mjs')], { cwd: root, stdio: 'inherit', env });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
