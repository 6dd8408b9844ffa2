/**
 * The program log: pino writes each line both to stdout and to a ring buffer that /api/logs reads
 * incrementally (`pre` = newest timestamp the console has seen).
 */
import { pino, type Logger } from 'pino';
import { LOG_LEVELS, type LogEntry } from '@lucky/contracts';
import { LogBuffer } from './logbuffer.js';
import { formatTime } from './time.js';

export type { Logger };

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const OMIT = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'mod', 'v', 'reqId']);

/** One readable line: `2026-11-22 01:45:28 INFO [wol] woke NAS mac=...`. */
export function formatLine(o: Record<string, unknown>): string {
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
  return `${formatTime(o.time as number)} ${level}${mod} ${String(o.msg ?? '')}${extra}`;
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
  buffer: LogBuffer;
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
  const buffer = new LogBuffer(opts.capacity);
  const out = opts.out;
  const stream = {
    write(line: string) {
      let o: Record<string, unknown>;
      try {
        o = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      const text = formatLine(o);
      buffer.push(text, o.time as number);
      if (out) out(opts.json ? line.trimEnd() : text);
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
    buffer,
    starttime: opts.starttime ?? Date.now(),
    setLevel(level) {
      logger.level = LOG_LEVELS[level as keyof typeof LOG_LEVELS] ?? 'info';
    },
  };
}
