/**
 * Errors that already say what went wrong as a message (a key and its values), so that whoever
 * shows them renders them in the reader's language. Text we did not write (Node's error, a remote
 * service's answer) travels as a value inside a message, never as the message itself.
 */
import { renderMsg, type Msg } from '@lucky/contracts/runtime';

export class MsgError extends Error {
  constructor(readonly msg: Msg) {
    // The English text, for stacks and debug logs only.
    super(renderMsg('en_US', msg));
  }
}

/** What an error says, as a message: its own, or the text it carries as a value. */
export function msgOf(err: unknown): Msg {
  if (err instanceof MsgError) return err.msg;
  const part = (err as { part?: Msg } | null)?.part;
  if (part && typeof part.key === 'string') return part;
  return { key: 'rawText', vars: { text: err instanceof Error ? err.message : String(err) } };
}

/** Several messages as one, separated as each language separates them. */
export function joinMsgs(parts: readonly Msg[]): Msg {
  if (parts.length === 0) return { key: 'rawText', vars: { text: '' } };
  return parts.reduceRight((rest, first) => ({ key: 'msgPair', vars: { first, rest } }));
}
