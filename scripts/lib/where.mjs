// The checkout's root and the scripts' one way of telling the user something: shared by the
// bootstrap and the helpers it calls (kept apart so that they need not import each other).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export function log(msg) {
  process.stderr.write(`[lucky] ${msg}\n`);
}
