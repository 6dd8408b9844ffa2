/**
 * The audit log: every change made through the API (and the few reads that matter, like a backup
 * download), with who, from where, and whether it worked. Bounded.
 */
import type { FastifyInstance } from 'fastify';
import { actorOf } from '../core/auth.js';
import type { Db } from '../core/db.js';

export interface AuditEntry {
  id: number;
  time: number;
  actor: string;
  address: string;
  action: string;
  target: string;
  result: number;
}

const KEEP = 5000;
/** GET routes that change something or hand out secrets. */
const AUDITED_GETS = new Set([
  '/api/configure',
  '/api/reboot_program',
  '/api/restoreconfigureconfirm',
  '/api/update/cancel',
  '/api/twofapassword',
  '/api/execgc',
]);

export class Audit {
  private inserts = 0;

  constructor(private db: Db) {}

  add(e: Omit<AuditEntry, 'id' | 'time'> & { time?: number }): void {
    this.db
      .prepare('INSERT INTO audit (at, actor, address, action, target, result) VALUES (?, ?, ?, ?, ?, ?)')
      .run(e.time ?? Date.now(), e.actor.slice(0, 64), e.address, e.action, e.target.slice(0, 128), e.result);
    if (++this.inserts % 100 === 0) {
      this.db.prepare('DELETE FROM audit WHERE id <= (SELECT MAX(id) FROM audit) - ?').run(KEEP);
    }
  }

  /** Newest first; `before` pages back from an id. */
  list(limit: number, before = 0): AuditEntry[] {
    type Row = Omit<AuditEntry, 'time'> & { at: number };
    const rows =
      before > 0
        ? this.db.prepare<[number, number], Row>('SELECT * FROM audit WHERE id < ? ORDER BY id DESC LIMIT ?').all(before, limit)
        : this.db.prepare<[number], Row>('SELECT * FROM audit ORDER BY id DESC LIMIT ?').all(limit);
    return rows.map(({ at, ...r }) => ({ ...r, time: at }));
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The `ret` the answer carried, for the audit log. */
    ret: number;
    /** Set when the caller used an API token instead of a session. */
    apiToken?: { id: string; name: string; scope: 'read' | 'full' };
  }
}

export function installAudit(app: FastifyInstance, audit: Audit): void {
  app.decorateRequest('ret', 0);
  app.addHook('onResponse', async (req) => {
    const def = req.routeOptions.config?.route;
    if (!def) return;
    if (def.method === 'GET' && !AUDITED_GETS.has(def.path)) return;
    const params = (req.params ?? {}) as Record<string, string>;
    let actor = actorOf(req);
    if (def.path === '/api/login') {
      const body = req.body as { Account?: unknown } | undefined;
      actor = typeof body?.Account === 'string' ? body.Account : '-';
    }
    audit.add({ actor, address: req.ip, action: `${def.method} ${def.path}`, target: params.key ?? params.id ?? params.address ?? '', result: req.ret });
  });
}
