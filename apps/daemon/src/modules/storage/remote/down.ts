import type { Msg } from '@lucky/contracts';
import { MsgError } from '../../../lib/msgerror.js';

/** `storageRemoteDown` naming the storage, with the remote's words or a message of ours: every kind's failure. */
export function remoteDown(name: string, detail: Msg | string): MsgError {
  return new MsgError({ key: 'storageRemoteDown', vars: { name, detail: typeof detail === 'string' ? { key: 'rawText', vars: { text: detail } } : detail } });
}
