// better-sqlite3's native part, one build per Node ABI (process.versions.modules), side by side in
// the package's lib/binding/node-v<abi>-<platform>-<arch>/, where its loader (`bindings`) looks
// for the running Node's own. A build in build/Release is for whichever Node installed the package
// last (pnpm's side-effects cache hands back the build of the Node that made it), and `bindings`
// tries that folder first and stops at a build for another Node ("compiled against a different
// Node.js version"): it is moved to the folder of the ABI it was built for, and a Node without a
// build of its own gets one here, built with its own headers.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { log, root } from './where.mjs';

const ADDON = 'better_sqlite3.node';

/** The better-sqlite3 package the daemon resolves. */
export function sqlitePackageDir() {
  return dirname(createRequire(join(root, 'apps', 'daemon', 'package.json')).resolve('better-sqlite3/package.json'));
}

/** Where `bindings` looks for the build of the Node with these facts (nodeFacts in ltsnode.mjs). */
export function bindingPath(pkgDir, facts) {
  return join(pkgDir, 'lib', 'binding', `node-v${facts.abi}-${facts.platform}-${facts.arch}`, ADDON);
}

/**
 * The ABI an addon was compiled for, read from the registration symbol Node's headers give it
 * (`node_register_module_v<abi>`), without loading it; null when it has none (an N-API addon).
 */
export function abiOfAddon(file) {
  const m = /node_register_module_v(\d+)/.exec(readFileSync(file).toString('latin1'));
  return m ? m[1] : null;
}

/** The NODE_MODULE_VERSION of the headers under `dir` (a Node prefix: include/node/), or null. */
export function headersAbi(dir) {
  const h = join(dir, 'include', 'node', 'node_version.h');
  if (!existsSync(h)) return null;
  return /#define NODE_MODULE_VERSION (\d+)/.exec(readFileSync(h, 'utf8'))?.[1] ?? null;
}

/** The prefix of `bin` (…/bin/node → …) when it holds that Node's own headers, else a system one that matches. */
export function nodedirFor(bin, abi) {
  const own = dirname(dirname(realpathSync(bin)));
  return [own, '/usr', '/usr/local'].find((d) => headersAbi(d) === abi) ?? null;
}

/** node-gyp as npm or pnpm carry it (npm comes with every Node; pnpm bundles its own). */
function findNodeGyp() {
  const tail = ['node_modules', 'node-gyp', 'bin', 'node-gyp.js'];
  // npm on PATH is a link to …/npm/bin/npm-cli.js (a Node from the npm registry carries no npm).
  const npmOnPath = (process.env.PATH ?? '')
    .split(delimiter)
    .map((d) => join(d, 'npm'))
    .filter((f) => existsSync(f))
    .map((f) => join(dirname(realpathSync(f)), '..', ...tail));
  const candidates = [
    process.env.npm_config_node_gyp,
    process.env.npm_execpath && join(dirname(process.env.npm_execpath), '..', ...tail),
    join(dirname(dirname(realpathSync(process.execPath))), 'lib', 'node_modules', 'npm', ...tail),
    ...npmOnPath,
    join(root, '.tools', 'pnpm', 'node_modules', 'pnpm', 'dist', ...tail),
  ];
  return candidates.find((c) => c && existsSync(c)) ?? null;
}

/** Moves a build left in build/Release to its ABI's folder; build/ goes (its objects are that one Node's). */
export function adoptBuild(pkgDir, facts) {
  const built = join(pkgDir, 'build', 'Release', ADDON);
  if (existsSync(built)) {
    const abi = abiOfAddon(built);
    if (abi) {
      const dest = bindingPath(pkgDir, { ...facts, abi });
      mkdirSync(dirname(dest), { recursive: true });
      // A copy, not a rename: pnpm may have hard-linked the file from its store, and a build
      // written over it later must not change the store's copy.
      copyFileSync(built, `${dest}.tmp`);
      renameSync(`${dest}.tmp`, dest);
    }
  }
  rmSync(join(pkgDir, 'build'), { recursive: true, force: true });
}

/** Opens a database in memory with `node` through the package: the proof that a build fits that Node. */
export function sqliteLoads(node, pkgDir) {
  const script = 'const D = require(process.argv[1]); const db = new D(":memory:"); if (db.prepare("select 41 + 1 as x").get().x !== 42) process.exit(3);';
  const r = spawnSync(node, ['-e', script, pkgDir], { encoding: 'utf8' });
  if (r.status === 0) return { ok: true, error: '' };
  // Node's message about another ABI spans lines ("compiled against … NODE_MODULE_VERSION …").
  const err = r.stderr ?? '';
  const at = err.search(/\w*Error\b/);
  return { ok: false, error: at >= 0 ? err.slice(at, at + 400).trim() : `exit ${r.status ?? r.signal}` };
}

/**
 * Makes sure `node` (facts: its nodeFacts) has a better-sqlite3 build of its own ABI. Returns
 * { path, built } or throws with what went wrong. nodedir: that Node's headers (found when omitted).
 * unoptimized: compiled with -O0, for a throwaway copy whose speed nobody needs (a test's).
 */
export function ensureSqliteBinding({ node = process.execPath, facts, nodedir, pkgDir = sqlitePackageDir(), unoptimized = false }) {
  adoptBuild(pkgDir, facts);
  const dest = bindingPath(pkgDir, facts);
  if (existsSync(dest) && abiOfAddon(dest) === facts.abi) return { path: dest, built: false };

  const gyp = findNodeGyp();
  if (!gyp) throw new Error('better-sqlite3 needs a build for this Node and no node-gyp was found (npm carries one)');
  const dir = nodedir ?? nodedirFor(node, facts.abi);
  log(`building better-sqlite3 for Node ${facts.version} (ABI ${facts.abi})${dir ? ` with the headers in ${dir}` : ''}`);
  const started = Date.now();
  // Without matching headers here node-gyp fetches that Node's own; a nodedir from npm's config
  // (the machine's Node) must not stand in for them.
  const env = { ...process.env, npm_config_nodedir: dir ?? '' };
  // gyp's Makefiles put CFLAGS/CXXFLAGS from the environment after the package's own -O3.
  if (unoptimized) Object.assign(env, { CFLAGS: '-O0', CXXFLAGS: '-O0' });
  const args = [gyp, 'rebuild', '--release', '--jobs=2', '--loglevel=warn', ...(dir ? [`--nodedir=${dir}`] : [])];
  const r = spawnSync(node, args, { cwd: pkgDir, stdio: ['ignore', 'ignore', 'inherit'], env });
  if (r.status !== 0) throw new Error(`node-gyp rebuild of better-sqlite3 failed (exit ${r.status ?? r.signal})`);
  adoptBuild(pkgDir, facts);
  if (!existsSync(dest)) throw new Error(`node-gyp built no ${ADDON} for ABI ${facts.abi}`);
  const check = sqliteLoads(node, pkgDir);
  if (!check.ok) throw new Error(`the new better-sqlite3 build does not load in Node ${facts.version}: ${check.error}`);
  log(`better-sqlite3 built for Node ${facts.version} in ${Math.round((Date.now() - started) / 1000)} s`);
  return { path: dest, built: true };
}
