/**
 * `audit`: the daemon's audit log (security management), for what a module does on the user's
 * behalf beyond the request itself: the multi-device admin writes each remote action there, one
 * entry per device, with the device, the action and its result.
 */
export interface AuditRecord {
  /** Who asked: the session's account or `token:<name>` (core/auth.ts `actorOf`). */
  actor: string;
  /** Where the request came from. */
  address: string;
  action: string;
  target: string;
  /** The answer's `ret`: 0 when it worked. */
  result: number;
}

export interface AuditService {
  add(entry: AuditRecord): void;
}
