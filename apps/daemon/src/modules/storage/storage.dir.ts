/** Whether a storage's directory can be used: the check of the save, of the engine and of the view. */
import { stat } from 'node:fs/promises';
import type { Msg } from '@lucky/contracts';

/** Why the directory cannot be used now, or null when it can. */
export async function directoryProblem(path: string): Promise<Msg | null> {
  try {
    const s = await stat(path);
    return s.isDirectory() ? null : { key: 'storagePathNotDir', vars: { path } };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { key: 'storagePathMissing', vars: { path } };
    return { key: 'storagePathUnreadable', vars: { path, detail: code ?? (err as Error).message } };
  }
}
