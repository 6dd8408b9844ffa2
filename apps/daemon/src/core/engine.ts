/**
 * The one lifecycle every engine has. An engine never throws for a runtime problem (port in use,
 * unreachable target): it records it as the rule's status and a log line, and the daemon goes on.
 */
import type { Lang, MessageKey, RuleStatus } from '@lucky/contracts';
import { message } from '@lucky/contracts/runtime';
import { LogBuffer } from './logbuffer.js';

/** One sentence of a status, kept as a message key so that each caller reads it in its language. */
/** A message and its values; a value may itself be a part (rendered in the same language). */
export type StatusPart = { key: MessageKey; vars?: Record<string, string | number | StatusPart> };
/** `message` is the English text (logs, tests); `parts`, when set, is what it was made of. */
export type EngineStatus = RuleStatus & { parts?: StatusPart[] };

/** A status made of message parts; `message` holds them in English. */
export function statusOf(state: RuleStatus['state'], since: number, parts: StatusPart[]): EngineStatus {
  return { state, since, message: statusText(parts, 'en_US'), parts };
}

export function statusText(parts: StatusPart[], lang: Lang): string {
  return parts.map((p) => partText(p, lang)).join(lang === 'zh_CN' ? '；' : '; ');
}

function partText(p: StatusPart, lang: Lang): string {
  if (!p.vars) return message(lang, p.key);
  const vars: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(p.vars)) vars[k] = typeof v === 'object' ? partText(v, lang) : v;
  return message(lang, p.key, vars);
}

/** Why a listener could not be opened, from the error code Node (or the native addon) gave. */
export function listenProblem(address: string, port: number, code: string | undefined, detail: string): StatusPart {
  if (code === 'EADDRINUSE') return { key: 'statusPortInUse', vars: { port, address } };
  if (code === 'EACCES') return { key: 'statusNoPermission', vars: { address } };
  if (code === 'EADDRNOTAVAIL') return { key: 'statusAddressUnavailable', vars: { address } };
  return { key: 'statusListenFailed', vars: { address, detail } };
}

/** An error that already says, as a status part, why a rule cannot run. */
export class RuleProblem extends Error {
  constructor(readonly part: StatusPart) {
    super(statusText([part], 'en_US'));
  }
}

/** The status as the API sends it: the message in the caller's language. */
export function presentStatus(s: EngineStatus, lang: Lang): RuleStatus {
  return { state: s.state, since: s.since, message: s.parts ? statusText(s.parts, lang) : s.message };
}

/** Runs the jobs of one key one after another (a rule's starts and stops never overlap). */
export class KeyedQueue {
  private tails = new Map<string, Promise<void>>();

  run(key: string, fn: () => Promise<void>): Promise<void> {
    const next = (this.tails.get(key) ?? Promise.resolve()).then(fn, fn);
    this.tails.set(key, next);
    void next.finally(() => {
      if (this.tails.get(key) === next) this.tails.delete(key);
    });
    return next;
  }
}

export interface RuleEngine<R> {
  /** Starts (or restarts) the rule; resolves once it runs or has failed into an `error` status. */
  start(key: string, rule: R): Promise<void>;
  stop(key: string): Promise<void>;
  status(key: string): EngineStatus;
  /** Live connections/sessions across all rules, for /api/status. */
  connections?(): number;
  /** Stops everything (module switched off, daemon closing). */
  close(): Promise<void>;
}

/** Per-rule logs kept in memory, bounded, read incrementally like the program log. */
export class RuleLogs {
  private buffers = new Map<string, LogBuffer>();

  constructor(private capacity = 256) {}

  add(key: string, line: string): void {
    let b = this.buffers.get(key);
    if (!b) this.buffers.set(key, (b = new LogBuffer(this.capacity)));
    b.push(line);
  }

  since(key: string, pre = 0) {
    return this.buffers.get(key)?.since(pre) ?? [];
  }

  drop(key: string): void {
    this.buffers.delete(key);
  }
}
