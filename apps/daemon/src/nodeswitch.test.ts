/**
 * A checkout used by one Node and then started with another (an upgrade, or back): better-sqlite3
 * is left in build/Release as the other Node built it (as pnpm's side-effects cache hands it back),
 * and the start-up's check (scripts/lib/sqlitebinding.mjs, called by every `npm start` and
 * `npm test` through the bootstrap) must find that and build this Node's own, leaving the other's
 * in place for the day it comes back. Run with the two real Nodes of `npm test` (this run's and the
 * other, LUCKY_TEST_NODES) on a copy of the package, so that the runs beside it keep theirs.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

interface NodeFacts {
  bin: string;
  version: string;
  abi: string;
  platform: string;
  arch: string;
}

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const nodes = JSON.parse(process.env.LUCKY_TEST_NODES ?? '[]') as NodeFacts[];
const self = nodes.find((n) => n.abi === process.versions.modules);
const other = nodes.find((n) => n.abi !== process.versions.modules);

describe.runIf(self && other)(`switching between Node ${self?.version} and Node ${other?.version}`, () => {
  const work = mkdtempSync(join(tmpdir(), 'lucky-nodeswitch-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("builds this Node's better-sqlite3 at start-up when only the other Node's build is there, and keeps both", async () => {
    const sb = await import(pathToFileURL(join(ROOT, 'scripts', 'lib', 'sqlitebinding.mjs')).href);
    const real: string = sb.sqlitePackageDir();
    // The package as an install under the other Node leaves it: its build in build/Release, no other.
    const pkg = join(work, 'node_modules', 'better-sqlite3');
    cpSync(real, pkg, { recursive: true, filter: (src: string) => !/[\\/](build|lib[\\/]binding)$/.test(src) });
    symlinkSync(realpathSync(join(dirname(real), 'bindings')), join(work, 'node_modules', 'bindings'));
    mkdirSync(join(pkg, 'build', 'Release'), { recursive: true });
    copyFileSync(sb.bindingPath(real, other), join(pkg, 'build', 'Release', 'better_sqlite3.node'));

    // What the user met: the other Node's build, refused by this one.
    const before = sb.sqliteLoads(self!.bin, pkg);
    expect(before.ok).toBe(false);
    expect(before.error).toMatch(new RegExp(`NODE_MODULE_VERSION ${other!.abi}[\\s\\S]*NODE_MODULE_VERSION ${self!.abi}`));

    const started = Date.now();
    // Without optimisation: the copy is thrown away, and sqlite at -O3 takes minutes of a core.
    const first = sb.ensureSqliteBinding({ node: self!.bin, facts: self, pkgDir: pkg, unoptimized: true });
    console.log(`better-sqlite3 built for Node ${self!.version} in ${Math.round((Date.now() - started) / 1000)} s`);
    expect(first.built).toBe(true);
    expect(existsSync(join(pkg, 'build'))).toBe(false);
    expect(sb.abiOfAddon(sb.bindingPath(pkg, self))).toBe(self!.abi);
    expect(sb.abiOfAddon(sb.bindingPath(pkg, other))).toBe(other!.abi);
    // Both Nodes open a database through the same package, each with its own build.
    for (const n of [self!, other!]) expect(sb.sqliteLoads(n.bin, pkg), `Node ${n.version}`).toEqual({ ok: true, error: '' });
    // The next start finds this Node's build and builds nothing.
    expect(sb.ensureSqliteBinding({ node: self!.bin, facts: self, pkgDir: pkg }).built).toBe(false);
  }, 600_000);

  it("loads the daemon's own addons from its ABI's folder on either Node", () => {
    const script = `import(process.argv[1]).then((m) => process.stdout.write(String(m.nativeAddon() !== null) + ' ' + process.versions.modules))`;
    const nativeJs = pathToFileURL(join(ROOT, 'apps', 'daemon', 'dist', 'core', 'native.js')).href;
    for (const n of [self!, other!]) {
      const r = spawnSync(n.bin, ['-e', script, nativeJs], { encoding: 'utf8' });
      expect(r.stdout, r.stderr).toBe(`true ${n.abi}`);
      expect(existsSync(join(ROOT, 'apps', 'daemon', 'dist', 'native', `node-v${n.abi}`, 'edge.node'))).toBe(true);
    }
  });
});
