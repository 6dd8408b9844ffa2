/**
 * Every answered request is HTTP 200 with `{ret: 0, ...}` on success or `{ret: non-zero, msg}` on failure.
 * HTTP 4xx/5xx are left for transport faults: the console counts those toward its logout threshold.
 */
import { z } from 'zod';

export const Ret = {
  ok: 0,
  /** Missing, expired or revoked session: the console goes to /login. */
  sessionInvalid: -1,
  /** The request itself is wrong: validation, bad JSON, body too large. */
  badRequest: 1,
  /** Refused: wrong credentials, locked out, address not allowed. */
  denied: 2,
  notFound: 3,
  moduleDisabled: 4,
  notAvailable: 5,
  /** The request was fine but doing it failed (port in use, I/O error...). */
  failed: 6,
} as const;
export type RetCode = (typeof Ret)[keyof typeof Ret];

export const ZErr = z.object({
  ret: z.number().int().refine((n) => n !== 0),
  msg: z.string(),
});
export type Err = z.infer<typeof ZErr>;

/** A success body: `{ret: 0}` plus the given fields. */
export function ok<S extends z.ZodRawShape>(shape: S) {
  return z.object({ ret: z.literal(0), ...shape });
}
export const ZOk = ok({ msg: z.string().optional() });
