// Builds the native addons (Linux only) with the C compiler and the headers of the Node that runs
// this script, into a folder of that Node's ABI (process.versions.modules), where the daemon looks
// for them (src/core/addons.ts):
//   dist/native/node-v<abi>/relay.node  native/*.c: the port forwarding relay, file transfers, socket openers;
//   dist/native/node-v<abi>/edge.node   native/edge/*.c: the web data plane, TLS by the OpenSSL inside Node.
// They are N-API addons, yet the edge calls the OpenSSL and nghttp2 inside Node, whose versions
// change between Node lines: each Node gets its own build, and two Nodes (npm test runs two) never
// overwrite each other's. native/fuzz holds the fuzzers' harnesses, built by their test. Without a
// compiler the daemon still works: port forwarding then relays in JavaScript and web rules are
// served by Node's servers.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const daemon = join(dirname(fileURLToPath(import.meta.url)), '..');
const nativeDir = join(daemon, 'native');
const filesOf = (dir) =>
  readdirSync(join(nativeDir, dir))
    .filter((f) => /\.[ch]$/.test(f))
    .sort()
    .map((f) => join(nativeDir, dir, f));
// HTTP/2 on the edge calls the nghttp2 inside Node, declared by Debian's libnghttp2-dev (Node ships
// no nghttp2 header); without it the edge serves HTTP/1.1 and HTTP/2 rules stay on Node's servers.
const nghttp2 = ['/usr/include/nghttp2/nghttp2.h', '/usr/local/include/nghttp2/nghttp2.h'].some((f) => existsSync(f));
const ADDONS = [
  { name: 'relay', sources: filesOf('.'), what: 'port forwarding will relay in JavaScript', flags: [] },
  { name: 'edge', sources: filesOf('edge'), what: 'web rules will be served by Node alone', flags: nghttp2 ? ['-DEDGE_H2'] : [] },
];

if (process.platform !== 'linux') {
  console.log('native addons: not Linux, skipped (port forwarding relays in JavaScript, web rules are served by Node)');
  process.exit(0);
}

// /usr/bin/node → /usr/include/node, /usr/local/bin/node → /usr/local/include/node (node-gyp's nodedir
// layout); only headers of this Node's own line will do (their OpenSSL is the one the edge runs with).
const abi = process.versions.modules;
const headersAbi = (d) => /#define NODE_MODULE_VERSION (\d+)/.exec(existsSync(join(d, 'node_version.h')) ? readFileSync(join(d, 'node_version.h'), 'utf8') : '')?.[1];
const headers = [join(dirname(dirname(realpathSync(process.execPath))), 'include', 'node'), '/usr/include/node', '/usr/local/include/node'].find(
  (d) => existsSync(join(d, 'node_api.h')) && headersAbi(d) === abi,
);
const cc = process.env.CC || 'cc';
for (const addon of ADDONS) {
  const out = join(daemon, 'dist', 'native', `node-v${abi}`, `${addon.name}.node`);
  if (existsSync(out) && addon.sources.every((f) => statSync(out).mtimeMs >= statSync(f).mtimeMs)) continue;
  if (!headers) {
    console.warn(`native ${addon.name}: no headers of Node ${process.versions.node} (node_api.h, ABI ${abi}) found next to it; ${addon.what}`);
    continue;
  }
  mkdirSync(dirname(out), { recursive: true });
  // OpenSSL's symbols are Node's own (its headers are in include/node/openssl): the edge links none.
  const r = spawnSync(cc, ['-O2', '-Wall', '-Wextra', '-shared', '-fPIC', '-fvisibility=hidden', ...addon.flags, `-I${headers}`, '-o', out, ...addon.sources.filter((f) => f.endsWith('.c')), '-lpthread'], {
    stdio: 'inherit',
  });
  if (r.status !== 0) {
    console.warn(`native ${addon.name}: ${cc} failed (${r.error?.message ?? `exit ${r.status}`}); ${addon.what}`);
    continue;
  }
  console.log(`native ${addon.name}: built ${out}${addon.name === 'edge' && !nghttp2 ? ' (without HTTP/2: no nghttp2 headers)' : ''}`);
}
