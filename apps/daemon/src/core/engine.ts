/**
 * What an engine is. An engine only starts one rule and returns a handle that stops it; the rule
 * runtime (ruleruntime.ts) owns everything around that: order of starts and stops, status, retry,
 * the rule's log, port claims. An engine never throws for a runtime problem it can live with
 * (one target down): it says so with `report`. What keeps the rule from running at all (port in
 * use, bad certificate) it throws as a RuleProblem, and the runtime shows it and retries.
 *
 * Imports only message helpers at run time: web serving threads load this file without zod.
 */
import type { Lang, Msg, RuleStatus } from '@lucky/contracts';
import { renderMsgs } from '@lucky/contracts/runtime';
import type { Say } from './logs.js';
import type { Endpoint } from './ports.js';
import { fmtAddr } from '../lib/ip.js';

/** One sentence of a status or a log line: a message key and its values, rendered when read. */
export type StatusPart = Msg;

/** `message` is the English text (logs, tests); `parts`, when set, is what it was made of. */
export type EngineStatus = RuleStatus & { parts?: StatusPart[] };

/** A status made of message parts; `message` holds them in English. */
export function statusOf(state: RuleStatus['state'], since: number, parts: StatusPart[]): EngineStatus {
  return { state, since, message: renderMsgs('en_US', parts), parts };
}

export function statusText(parts: StatusPart[], lang: Lang): string {
  return renderMsgs(lang, parts);
}

/** Why a listener could not be opened, from the error code Node (or the native addon) gave. */
export function listenProblem(address: string, port: number, code: string | undefined, detail: string): StatusPart {
  if (code === 'EADDRINUSE') return { key: 'statusPortInUse', vars: { port, address } };
  if (code === 'EACCES') return { key: 'statusNoPermission', vars: { address } };
  if (code === 'EADDRNOTAVAIL') return { key: 'statusAddressUnavailable', vars: { address } };
  return { key: 'statusListenFailed', vars: { address, detail } };
}

/** An error that already says, as a message, why a rule cannot run. */
export class RuleProblem extends Error {
  constructor(
    readonly part: StatusPart,
    /** False for what waiting cannot mend (a bad certificate): no retry until the rule is saved again. */
    readonly retry = true,
  ) {
    super(renderMsgs('en_US', [part]));
  }
}

/**
 * The rule cannot run yet but will the moment something appears (a certificate being ordered): the
 * runtime shows `waiting` with the part, retries nothing on a timer, and starts the rule again when
 * `until` calls `ready`. `until` returns the unsubscribe; it calls `ready` itself when what it waits
 * for came while the start was failing.
 */
export class RuleWaits extends RuleProblem {
  constructor(
    part: StatusPart,
    readonly until: (ready: () => void) => () => void,
  ) {
    super(part, false);
  }
}

/** The status as the API sends it: the message in the caller's language. */
export function presentStatus(s: EngineStatus, lang: Lang): RuleStatus {
  return { state: s.state, since: s.since, message: s.parts ? renderMsgs(lang, s.parts) : s.message };
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

// ------------------------------------------------------------------ the engine contract of the kit

/** What an engine is given for one running rule. */
export interface RuleContext<S> {
  readonly key: string;
  readonly name: string;
  /** A line in the rule's log. */
  note(line: Msg): void;
  /** How many lines the rule's log keeps (never fewer than the default): a server with an access log asks for more. */
  logLines(lines: number): void;
  /**
   * A problem the rule runs with (some listeners down...), shown as its status; null when it is gone.
   * `waiting`: not a problem but something on its way that the rule serves without meanwhile (a
   * certificate being ordered, a stand-in answering).
   */
  report(parts: Msg[] | null, as?: 'error' | 'waiting'): void;
  /**
   * Claims a port known only once bound (the system chose it), or one opened for a while (ACME's
   * HTTP-01 listener); throws PortConflict. Returns the release of that one claim (all of the rule's
   * claims go when it stops).
   */
  claim(endpoint: Endpoint): () => void;
  /** The module's settings as they are now. */
  settings(): S;
  /** The program log, for lines about this rule. */
  readonly log: Say;
}

export interface RuleHandle<R, F> {
  stop(): Promise<void>;
  /** Applies an edited rule in place (connections stay); false when it has to be restarted instead. */
  update?(rule: R): Promise<boolean> | boolean;
  /** Live figures for the rule list (counters, last results). */
  figures?(): F | Promise<F>;
}

export interface Engine<R, S = unknown, F = unknown> {
  start(rule: R, ctx: RuleContext<S>): Promise<RuleHandle<R, F>>;
  /** Module settings changed: apply them to what runs. */
  configure?(settings: S): void | Promise<void>;
  /** Live connections or sessions across the module's rules, for /api/status. */
  connections?(): number;
  /** Every rule has stopped (module switched off, daemon closing): free what the engine shares. */
  close?(): Promise<void>;
}

/**
 * A TCP server listening on `host` (every address: `::`, and `0.0.0.0` on a system without IPv6),
 * or the rule's error status naming the address and why (a port in use, an address not here).
 */
export async function listenTcp(server: import('node:net').Server, host: string, port: number): Promise<string> {
  const once = (h: string) =>
    new Promise<void>((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException) => reject(err);
      server.once('error', onError);
      server.listen({ host: h, port }, () => {
        server.off('error', onError);
        resolve();
      });
    });
  const all = host === '';
  const first = all ? '::' : host;
  try {
    await once(first);
    return first;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (all && (e.code === 'EAFNOSUPPORT' || e.code === 'EADDRNOTAVAIL')) {
      try {
        await once('0.0.0.0');
        return '0.0.0.0';
      } catch (err2) {
        const e2 = err2 as NodeJS.ErrnoException;
        throw new RuleProblem(listenProblem(fmtAddr('0.0.0.0', port), port, e2.code, e2.message));
      }
    }
    throw new RuleProblem(listenProblem(fmtAddr(first, port), port, e.code, e.message));
  }
}
