/**
 * Where the daemon's own native addons are: dist/native/node-v<abi>/, one folder per Node ABI
 * (apps/daemon/scripts/build-native.mjs builds into the running Node's). The edge calls the OpenSSL
 * and nghttp2 inside Node, so a build is only good for the Node line it was made with; after a
 * Node upgrade the new line's folder is empty until the next build, and the daemon serves without
 * the addons rather than loading another line's.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** dist/native from src/core or dist/core alike. */
const NATIVE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'native');

/** The file of addon `name` (relay, edge) built for the Node running this process. */
export function addonPath(name: 'relay' | 'edge'): string {
  return join(NATIVE_DIR, `node-v${process.versions.modules}`, `${name}.node`);
}
