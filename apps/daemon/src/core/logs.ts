/**
 * The program log: pino writes each line both to stdout and to a ring buffer that /api/logs reads
 * incrementally (`pre` = newest timestamp the console has seen). A line written with `say` keeps
 * its message key and values (`mk`, `mv`): the ring renders it in each reader's language, stdout
 * and JSON logs get the English text.
 */
import { pino, type Logger } from 'pino';
import { LOG_LEVELS, message, renderMsg, type Lang, type LogEntry, type MessageKey, type Msg, type MsgValue } from '@lucky/contracts';
import { LogBuffer } from './logbuffer.js';
import { formatTime } from './time.js';

export type { Logger };

type Level = 'debug' | 'info' | 'warn' | 'error';
/** Program log lines a user reads: messages, so each reader gets them in their language. */
export type Say = Record<Level, (line: Msg, extra?: Record<string, unknown>) => void>;

/** Any pino-like logger: the program log, a module's child, a request's. */
type LevelLogger = { [L in Level]: (obj: object, msg: string) => void };

export function sayer(logger: LevelLogger): Say {
  const at = (level: Level) => (line: Msg, extra?: Record<string, unknown>) =>
    logger[level]({ ...extra, mk: line.key, ...(line.vars ? { mv: line.vars } : {}) }, renderMsg('en_US', line));
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const OMIT = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'mod', 'v', 'reqId', 'mk', 'mv']);

/** One readable line: `2026-11-22 01:45:28 INFO [wol] woke NAS mac=...`, keyed lines in `lang`. */
export function formatLine(o: Record<string, unknown>, lang: Lang = 'en_US'): string {
  const level = LEVEL_NAMES[o.level as number] ?? String(o.level);
  const mod = typeof o.mod === 'string' ? ` [${o.mod}]` : '';
  let extra = '';
  for (const [k, v] of Object.entries(o)) {
    if (OMIT.has(k) || v === undefined) continue;
    if (k === 'err' && v && typeof v === 'object') {
      const e = v as { message?: string; stack?: string };
      extra += ` err=${JSON.stringify(e.message ?? '')}`;
      continue;
    }
    extra += ` ${k}=${typeof v === 'string' ? (/\s/.test(v) ? JSON.stringify(v) : v) : JSON.stringify(v)}`;
  }
  const text = typeof o.mk === 'string' ? message(lang, o.mk as MessageKey, (o.mv ?? {}) as Record<string, MsgValue>) : String(o.msg ?? '');
  return `${formatTime(o.time as number)} ${level}${mod} ${text}${extra}`;
}

/** Fields that may carry secrets; pino blanks them before anything is written. */
const REDACT = [
  'password',
  'Password',
  'AdminPassword',
  'token',
  'secret',
  'TwoFA',
  'authorization',
  '*.password',
  '*.Password',
  '*.token',
  '*.secret',
  'req.headers["lucky-admin-token"]',
  'req.headers.authorization',
];

export interface ProgramLog {
  logger: Logger;
  /** The lines after `pre`, rendered in `lang`. */
  read(pre: number, lang: Lang): LogEntry[];
  resize(capacity: number): void;
  /** Process start, so the console can tell a restart from a quiet log. */
  starttime: number;
  setLevel(level: number): void;
}

export function createProgramLog(opts: {
  level: number;
  capacity: number;
  /** Where formatted lines also go; stdout in the daemon, nothing in tests. */
  out?: (line: string) => void;
  json?: boolean;
  starttime?: number;
}): ProgramLog {
  // Records, not text: a keyed line is rendered when read, in the reader's language.
  const buffer = new LogBuffer<Record<string, unknown>>(opts.capacity);
  const out = opts.out;
  const stream = {
    write(line: string) {
      let o: Record<string, unknown>;
      try {
        o = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      buffer.push(o, o.time as number);
      if (out) out(opts.json ? line.trimEnd() : formatLine(o));
    },
  };
  const logger = pino(
    {
      level: LOG_LEVELS[opts.level as keyof typeof LOG_LEVELS] ?? 'info',
      base: undefined,
      redact: { paths: REDACT, censor: '***' },
    },
    stream,
  );
  return {
    logger,
    read: (pre, lang) => buffer.since(pre).map((e) => ({ timestamp: e.timestamp, log: formatLine(e.item, lang) })),
    resize: (capacity) => buffer.resize(capacity),
    starttime: opts.starttime ?? Date.now(),
    setLevel(level) {
      logger.level = LOG_LEVELS[level as keyof typeof LOG_LEVELS] ?? 'info';
    },
  };
}
