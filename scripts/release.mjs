// `node scripts/release.mjs`: build, then pack the built directories into release/lucky-<version>.tar.gz
// with lucky-release.json (every file's SHA-256, and the lockfile's), the archive the console's
// update upload accepts.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, log, nativeAddons, root, thisNode } from './lib/bootstrap.mjs';
import { ensureLtsNode } from './lib/ltsnode.mjs';

build();
// The archive carries the native addons of both Node lines `engines` names (dist/native/node-v<abi>),
// so that a device on either runs the data paths natively after the update.
const lts = ensureLtsNode();
if (lts && lts.abi !== thisNode.abi) nativeAddons(lts);
const { writeTar } = await import(join(root, 'apps/daemon/dist/system/tar.js'));
const { RELEASE_DIRS, RELEASE_MANIFEST, lockfileHash } = await import(join(root, 'apps/daemon/dist/system/update.js'));
const version = JSON.parse(readFileSync(join(root, 'apps/daemon/package.json'), 'utf8')).version;

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

const entries = [];
const files = {};
for (const d of RELEASE_DIRS) {
  for (const p of walk(join(root, d))) {
    const path = relative(root, p).split('\\').join('/');
    const data = readFileSync(p);
    files[path] = createHash('sha256').update(data).digest('hex');
    entries.push({ path, data });
  }
}
const manifest = { name: 'lucky', version, created: Date.now(), lockfile: lockfileHash(root), files };
const archive = gzipSync(writeTar([{ path: RELEASE_MANIFEST, data: Buffer.from(JSON.stringify(manifest, null, 1)) }, ...entries]));
mkdirSync(join(root, 'release'), { recursive: true });
const out = join(root, 'release', `lucky-${version}.tar.gz`);
writeFileSync(out, archive);
log(`wrote ${relative(root, out)} (${entries.length} files, ${(archive.length / 1e6).toFixed(1)} MB)`);
