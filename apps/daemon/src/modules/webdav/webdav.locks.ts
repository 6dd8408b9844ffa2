/**
 * WebDAV write locks (RFC 4918 §6-7): exclusive and shared, depth 0 or infinity, with timeouts.
 * Kept in memory per rule: a lock outlives no restart, which clients handle (they lock again), and
 * nothing on disk can hold a stale lock forever. Locks are keyed by the URL path of the resource as
 * the client sees it, so two mounts of one rule never share a lock by accident.
 */
import { randomUUID } from 'node:crypto';

export interface DavLock {
  token: string;
  /** The locked URL path (decoded, no trailing slash except the root). */
  root: string;
  /** The locked resource's URL, for lockdiscovery's lockroot. */
  rootHref: string;
  scope: 'exclusive' | 'shared';
  depth: '0' | 'infinity';
  /** The owner element as the client sent it (XML text), returned in lockdiscovery. */
  owner: string;
  /** Who took it: only this account may use its token. */
  principal: string;
  timeoutSec: number;
  expires: number;
}

export function isUnder(path: string, root: string): boolean {
  if (path === root) return true;
  const base = root.endsWith('/') ? root : `${root}/`;
  return path.startsWith(base);
}

export class LockTable {
  private locks = new Map<string, DavLock>();

  private sweep(): void {
    const now = Date.now();
    for (const [t, l] of this.locks) if (l.expires <= now) this.locks.delete(t);
  }

  /** No lock is held anywhere (a write then needs no lock checks at all). */
  get empty(): boolean {
    this.sweep();
    return this.locks.size === 0;
  }

  get(token: string): DavLock | undefined {
    this.sweep();
    return this.locks.get(token);
  }

  /** The locks that cover a path: its own, and those of ancestors taken with depth infinity. */
  covering(path: string): DavLock[] {
    this.sweep();
    return [...this.locks.values()].filter((l) => l.root === path || (l.depth === 'infinity' && isUnder(path, l.root)));
  }

  /** The locks on a path or anything below it (what a depth-infinity lock or a DELETE would meet). */
  within(path: string): DavLock[] {
    this.sweep();
    return [...this.locks.values()].filter((l) => isUnder(l.root, path));
  }

  /** A new lock, or null when it conflicts with one that exists. */
  create(l: Omit<DavLock, 'token' | 'expires'>): DavLock | null {
    const clash = (o: DavLock) => o.scope === 'exclusive' || l.scope === 'exclusive';
    if (this.covering(l.root).some(clash)) return null;
    if (l.depth === 'infinity' && this.within(l.root).some(clash)) return null;
    const lock: DavLock = { ...l, token: `opaquelocktoken:${randomUUID()}`, expires: Date.now() + l.timeoutSec * 1000 };
    this.locks.set(lock.token, lock);
    return lock;
  }

  refresh(lock: DavLock, timeoutSec: number): void {
    lock.timeoutSec = timeoutSec;
    lock.expires = Date.now() + timeoutSec * 1000;
  }

  remove(token: string): boolean {
    return this.locks.delete(token);
  }

  /** The resource is gone (DELETE, MOVE away): its locks and those below go with it. */
  dropWithin(path: string): void {
    for (const l of this.within(path)) this.locks.delete(l.token);
  }

  clear(): void {
    this.locks.clear();
  }
}

/** Timeout: Second-N, Infinite; the first the server accepts, capped by the rule's lock timeout. */
export function parseTimeout(header: string | undefined, max: number): number {
  if (!header) return max;
  for (const part of header.split(',')) {
    const t = part.trim();
    if (/^infinite$/i.test(t)) return max;
    const m = /^second-(\d+)$/i.exec(t);
    if (m) return Math.max(1, Math.min(max, Number(m[1])));
  }
  return max;
}

// ------------------------------------------------------------------ the If header (RFC 4918 §10.4)

export interface IfCondition {
  not: boolean;
  kind: 'token' | 'etag';
  value: string;
}
export interface IfList {
  /** The tagged resource (a URL, absolute or a path), or undefined for the request's own. */
  tag?: string;
  conditions: IfCondition[];
}

/** Parses an If header; null when it is malformed (the request is answered 400). */
export function parseIf(header: string): IfList[] | null {
  const lists: IfList[] = [];
  let i = 0;
  let tag: string | undefined;
  const s = header;
  const ws = () => {
    while (i < s.length && /\s/.test(s[i]!)) i++;
  };
  while (true) {
    ws();
    if (i >= s.length) break;
    if (s[i] === '<') {
      const e = s.indexOf('>', i);
      if (e === -1) return null;
      tag = s.slice(i + 1, e);
      i = e + 1;
      continue;
    }
    if (s[i] !== '(') return null;
    i++;
    const conditions: IfCondition[] = [];
    for (;;) {
      ws();
      if (s[i] === ')') {
        i++;
        break;
      }
      let not = false;
      if (/^not\b/i.test(s.slice(i, i + 4))) {
        not = true;
        i += 3;
        ws();
      }
      if (s[i] === '<') {
        const e = s.indexOf('>', i);
        if (e === -1) return null;
        conditions.push({ not, kind: 'token', value: s.slice(i + 1, e) });
        i = e + 1;
      } else if (s[i] === '[') {
        const e = s.indexOf(']', i);
        if (e === -1) return null;
        conditions.push({ not, kind: 'etag', value: s.slice(i + 1, e) });
        i = e + 1;
      } else return null;
    }
    if (conditions.length === 0) return null;
    lists.push({ ...(tag !== undefined ? { tag } : {}), conditions });
  }
  return lists.length ? lists : null;
}
