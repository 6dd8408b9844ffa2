/**
 * The one owner of every (protocol, address, port) the daemon listens on: each rule of each module,
 * and the console. Our own listeners open with SO_REUSEPORT (web serving threads), so the kernel
 * would let two of our rules share a port and split its connections; only this registry can refuse
 * the second one. A wildcard address takes every address of its family on that port; `::` without
 * v6only takes the IPv4 ones too. TCP and UDP never conflict.
 */
import type { MessageKey, Msg, MsgValue } from '@lucky/contracts';
import { MESSAGES, isIPv4, isIPv6 } from '@lucky/contracts/runtime';

export type Proto = 'tcp' | 'udp';

export interface Endpoint {
  proto: Proto;
  /** '' = every address (dual stack), '0.0.0.0', '::', or one address. */
  address: string;
  port: number;
  /** `::` that does not take IPv4 too. */
  v6only?: boolean;
}

export interface PortOwner {
  /** A module key, or 'console' for the admin console itself. */
  module: string;
  /** The rule's key within its module ('' for the console). */
  key: string;
  /** What the user calls it, for messages. */
  name: string;
}

interface Claim {
  ep: Endpoint;
  owner: PortOwner;
}

type Scope = { v4: 'all' | string | null; v6: 'all' | string | null };

/** Which addresses of each family an endpoint takes. */
function scopeOf(ep: Endpoint): Scope {
  const a = ep.address;
  if (a === '' || a === '::') return { v4: ep.v6only ? null : 'all', v6: 'all' };
  if (a === '0.0.0.0') return { v4: 'all', v6: null };
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  if (mapped) return { v4: mapped[1]!, v6: null };
  if (isIPv4(a)) return { v4: a, v6: null };
  if (isIPv6(a)) return { v4: null, v6: a.toLowerCase() };
  // A host name: compare by name (the rule's own validation keeps these rare).
  return { v4: a, v6: a };
}

const meets = (x: string | null, y: string | null) => x !== null && y !== null && (x === 'all' || y === 'all' || x === y);

export function endpointsConflict(a: Endpoint, b: Endpoint): boolean {
  if (a.proto !== b.proto || a.port !== b.port || a.port === 0) return false;
  const sa = scopeOf(a);
  const sb = scopeOf(b);
  return meets(sa.v4, sb.v4) || meets(sa.v6, sb.v6);
}

const sameOwner = (a: PortOwner, b: PortOwner) => a.module === b.module && a.key === b.key;

export function formatEndpoint(ep: Endpoint): string {
  const host = ep.address === '' ? '::' : ep.address;
  return `${ep.proto} ${host.includes(':') ? `[${host}]` : host}:${ep.port}`;
}

/** A module's name in the reader's language (`module_<key>` messages), else its key. */
export function moduleName(module: string): MsgValue {
  const key = `module_${module}`;
  return key in MESSAGES.en_US ? { key: key as MessageKey } : module;
}

/** A refused claim, as the message the rule shows: "tcp 0.0.0.0:80 is used by rule «x» of Web services". */
export class PortConflict extends Error {
  constructor(
    readonly endpoint: Endpoint,
    readonly owner: PortOwner,
  ) {
    super(`${formatEndpoint(endpoint)} is used by ${owner.module} rule ${owner.name}`);
  }

  get msg(): Msg {
    const endpoint = formatEndpoint(this.endpoint);
    if (this.owner.module === 'console') return { key: 'portOwnedByConsole', vars: { endpoint } };
    return { key: 'portOwnedByRule', vars: { endpoint, name: this.owner.name, module: moduleName(this.owner.module) } };
  }
}

export class PortRegistry {
  /** By "proto port", so that a check looks only at the claims on that port. */
  private claims = new Map<string, Claim[]>();
  /** The slots each owner holds, so that releasing a rule of 4096 ports does not scan every slot. */
  private held = new Map<string, Set<string>>();

  private slot(ep: Endpoint): string {
    return `${ep.proto} ${ep.port}`;
  }

  private id(owner: PortOwner): string {
    return `${owner.module}/${owner.key}`;
  }

  /** The first claim of another owner that `ep` would conflict with. */
  private conflictOf(ep: Endpoint, owner: PortOwner): Claim | undefined {
    return this.claims.get(this.slot(ep))?.find((c) => !sameOwner(c.owner, owner) && endpointsConflict(c.ep, ep));
  }

  /** Throws PortConflict for the first endpoint another owner holds; claims nothing. */
  check(endpoints: readonly Endpoint[], owner: PortOwner): void {
    for (const ep of endpoints) {
      const c = this.conflictOf(ep, owner);
      if (c) throw new PortConflict(ep, c.owner);
    }
  }

  /**
   * Claims all of `endpoints` for `owner`, or none of them (PortConflict). What the owner held
   * before and does not name again is released: a rule's claims always match its latest version.
   */
  claim(endpoints: readonly Endpoint[], owner: PortOwner): void {
    this.check(endpoints, owner);
    this.release(owner);
    // The system picks port 0: the engine adds what it got.
    for (const ep of endpoints) if (ep.port !== 0) this.put(ep, owner);
  }

  /** Adds one endpoint to what `owner` holds (a port the system picked, known only once bound). */
  add(ep: Endpoint, owner: PortOwner): void {
    const c = this.conflictOf(ep, owner);
    if (c) throw new PortConflict(ep, c.owner);
    this.put(ep, owner);
  }

  private put(ep: Endpoint, owner: PortOwner): void {
    const slot = this.slot(ep);
    const list = this.claims.get(slot);
    if (list) list.push({ ep, owner });
    else this.claims.set(slot, [{ ep, owner }]);
    const id = this.id(owner);
    const mine = this.held.get(id);
    if (mine) mine.add(slot);
    else this.held.set(id, new Set([slot]));
  }

  /** Lets go of one endpoint `owner` added (a temporary listener closed); its other claims stay. */
  drop(ep: Endpoint, owner: PortOwner): void {
    const slot = this.slot(ep);
    const list = this.claims.get(slot);
    if (!list) return;
    const i = list.findIndex((c) => sameOwner(c.owner, owner) && c.ep.address === ep.address && c.ep.proto === ep.proto && !!c.ep.v6only === !!ep.v6only);
    if (i === -1) return;
    list.splice(i, 1);
    if (list.length === 0) this.claims.delete(slot);
    if (!list.some((c) => sameOwner(c.owner, owner))) this.held.get(this.id(owner))?.delete(slot);
  }

  release(owner: PortOwner): void {
    const id = this.id(owner);
    for (const slot of this.held.get(id) ?? []) {
      const kept = this.claims.get(slot)!.filter((c) => !sameOwner(c.owner, owner));
      if (kept.length === 0) this.claims.delete(slot);
      else this.claims.set(slot, kept);
    }
    this.held.delete(id);
  }

  /** Everything claimed, for the status page and tests. */
  list(): Array<{ endpoint: Endpoint; owner: PortOwner }> {
    return [...this.claims.values()].flat().map((c) => ({ endpoint: c.ep, owner: c.owner }));
  }
}
