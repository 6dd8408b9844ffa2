// Builds every C file under native/ (but native/fuzz, the fuzzers' harnesses) into
// dist/native/relay.node (Linux only) with the C compiler and the headers of the Node that runs this
// script. N-API keeps one build good for Node 20, 22, 24. Without a compiler the daemon still works:
// port forwarding then relays in JavaScript and web rules are served by Node's HTTP servers.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const daemon = join(dirname(fileURLToPath(import.meta.url)), '..');
const nativeDir = join(daemon, 'native');
const sources = readdirSync(nativeDir, { recursive: true })
  .map(String)
  .filter((f) => /\.[ch]$/.test(f) && !f.startsWith('fuzz'))
  .sort()
  .map((f) => join(nativeDir, f));
const out = join(daemon, 'dist', 'native', 'relay.node');

if (process.platform !== 'linux') {
  console.log('native relay: not Linux, skipped (port forwarding relays in JavaScript)');
  process.exit(0);
}
if (existsSync(out) && sources.every((f) => statSync(out).mtimeMs >= statSync(f).mtimeMs)) process.exit(0);

// /usr/bin/node → /usr/include/node, /usr/local/bin/node → /usr/local/include/node (node-gyp's nodedir layout).
const headers = [join(dirname(dirname(process.execPath)), 'include', 'node'), '/usr/include/node', '/usr/local/include/node'].find((d) =>
  existsSync(join(d, 'node_api.h')),
);
if (!headers) {
  console.warn('native relay: node_api.h not found next to this Node; port forwarding will relay in JavaScript');
  process.exit(0);
}
mkdirSync(dirname(out), { recursive: true });
const cc = process.env.CC || 'cc';
const r = spawnSync(cc, ['-O2', '-Wall', '-Wextra', '-shared', '-fPIC', '-fvisibility=hidden', `-I${headers}`, '-o', out, ...sources.filter((f) => f.endsWith('.c')), '-lpthread'], {
  stdio: 'inherit',
});
if (r.status !== 0) {
  console.warn(`native relay: ${cc} failed (${r.error?.message ?? `exit ${r.status}`}); port forwarding will relay in JavaScript`);
  process.exit(0);
}
console.log(`native relay: built ${out}`);
