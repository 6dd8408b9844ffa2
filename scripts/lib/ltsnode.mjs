// The second Node that `npm test` runs the suite on (scripts/lib/node-lts.json names it): fetched
// from the npm registry like any other dependency (`npm pack node-<platform>-<arch>@<version>`),
// its integrity checked against the pinned one, unpacked into .tools/node/ (ignored by git) and
// kept there, so a second `npm test` fetches nothing.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { log, root } from './where.mjs';

export const LTS = JSON.parse(readFileSync(join(root, 'scripts', 'lib', 'node-lts.json'), 'utf8'));

/** What a Node binary says about itself, or null when it does not run here. */
export function nodeFacts(bin) {
  const r = spawnSync(bin, ['-p', 'JSON.stringify({version: process.versions.node, abi: process.versions.modules, platform: process.platform, arch: process.arch})'], {
    encoding: 'utf8',
  });
  if (r.status !== 0) return null;
  return JSON.parse(r.stdout);
}

/**
 * The pinned LTS Node for this machine: { bin, dir (its prefix: bin/node, include/node),
 * version, abi, platform, arch }; null (with the reason logged) where it cannot be had.
 */
export function ensureLtsNode() {
  const target = `${process.platform}-${process.arch}`;
  const integrity = LTS.packages[target];
  if (!integrity) {
    log(`no pinned Node ${LTS.version} build for ${target} in scripts/lib/node-lts.json`);
    return null;
  }
  const dir = join(root, '.tools', 'node', `${LTS.version}-${target}`);
  const bin = join(dir, 'bin', 'node');
  if (!existsSync(bin)) fetchInto(dir, `node-${target}@${LTS.version}`, integrity);
  if (!existsSync(bin)) return null;
  const facts = nodeFacts(bin);
  if (!facts || facts.version !== LTS.version) {
    log(`${bin} does not run here (${facts ? `says ${facts.version}` : 'no answer'})`);
    return null;
  }
  if (!existsSync(join(dir, 'include', 'node', 'node_api.h'))) {
    log(`${dir} has no headers (include/node): native parts cannot be built for Node ${LTS.version}`);
    return null;
  }
  return { bin, dir, ...facts };
}

function fetchInto(dir, spec, integrity) {
  log(`fetching Node ${LTS.version} (${spec}) from the npm registry`);
  mkdirSync(join(root, '.tools', 'node'), { recursive: true });
  // Unpacked beside its final place and renamed into it: a half unpacked Node is never taken for one.
  const work = mkdtempSync(join(root, '.tools', 'node', '.fetch-'));
  try {
    const pack = spawnSync('npm', ['pack', spec, '--pack-destination', work, '--silent'], { stdio: ['ignore', 'ignore', 'inherit'] });
    const tgz = readdirSync(work).find((f) => f.endsWith('.tgz'));
    if (pack.status !== 0 || !tgz) {
      log(`npm pack ${spec} failed (exit ${pack.status})`);
      return;
    }
    const [algo, want] = integrity.split('-');
    const got = createHash(algo).update(readFileSync(join(work, tgz))).digest('base64');
    if (got !== want) {
      log(`${spec}: integrity ${algo}-${got} is not the pinned ${integrity}; not used`);
      return;
    }
    const out = join(work, 'unpacked');
    mkdirSync(out);
    const tar = spawnSync('tar', ['-xzf', join(work, tgz), '-C', out, '--strip-components=1'], { stdio: 'inherit' });
    if (tar.status !== 0) {
      log(`unpacking ${tgz} failed`);
      return;
    }
    rmSync(dir, { recursive: true, force: true });
    renameSync(out, dir);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
