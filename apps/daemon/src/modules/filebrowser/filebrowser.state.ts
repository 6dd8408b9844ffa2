/**
 * What the module keeps in memory beside its rules (the shares): uploads under way, download
 * tickets, the key that signs a share's password access, download counts, the search indexes and
 * the thumbnail cache. Kept per module
 * context, so two daemons in one test process never mix.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { filebrowserContract } from '@lucky/contracts';
import type { ModuleContext } from '../../core/module.js';
import type { StoragePrincipal } from '../../core/services/storages.js';
import { SearchIndexes } from './filebrowser.index.js';
import { ThumbCache } from './filebrowser.thumbs.js';

export type FbContext = ModuleContext<typeof filebrowserContract, 'storages'>;

export interface Upload {
  id: string;
  storage: string;
  /** The clean path inside the storage where the file goes. */
  path: string;
  size: number;
  offset: number;
  overwrite: boolean;
  /**
   * The temporary file, inside the storage's root (same filesystem: the final rename is atomic); for
   * a remote storage, in the daemon's data folder (`fb-uploads/`), sent to the remote at the end.
   */
  tmp: string;
  active: number;
  /** A chunk is being written now. */
  busy: boolean;
}

export interface Ticket {
  who: StoragePrincipal;
  storage: string;
  paths: string[];
  name: string;
  inline: boolean;
  expires: number;
}

/** Uploads nobody touched for this long are dropped with their temporary file. */
export const UPLOAD_IDLE_MS = 24 * 3600_000;
export const TICKET_MS = 4 * 3600_000;
const MAX_TICKETS = 2000;

export class FbState {
  readonly uploads = new Map<string, Upload>();
  readonly tickets = new Map<string, Ticket>();
  readonly downloads = new Map<string, number>();
  /** Signs the access a share's password gives (a restart asks for the password again). */
  readonly shareKey = randomBytes(32);
  /** The storages' name indexes, for search. */
  readonly indexes: SearchIndexes;
  readonly thumbs: ThumbCache;
  private sweeper: NodeJS.Timeout;
  private readonly stageRoot: string;
  private staged: Promise<string> | null = null;

  /** `exists`: whether a storage is still there (an index of a deleted one is dropped at the next check). */
  constructor(dataDir: string, exists: (storage: string) => boolean = () => true) {
    this.indexes = new SearchIndexes(exists);
    this.thumbs = new ThumbCache(join(dataDir, 'thumbs'));
    this.stageRoot = join(dataDir, 'fb-uploads');
    this.sweeper = setInterval(() => void this.sweep(), 10 * 60_000);
    this.sweeper.unref();
  }

  /**
   * Where uploads to remote storages are staged. Emptied when first asked for in this process:
   * uploads live in memory, so what an earlier run left there belongs to nobody.
   */
  stageDir(): Promise<string> {
    this.staged ??= rm(this.stageRoot, { recursive: true, force: true })
      .then(() => mkdir(this.stageRoot, { recursive: true, mode: 0o700 }))
      .then(() => this.stageRoot);
    const p = this.staged;
    p.catch(() => {
      if (this.staged === p) this.staged = null;
    });
    return p;
  }

  addTicket(t: Ticket): string {
    const id = randomBytes(24).toString('base64url');
    if (this.tickets.size >= MAX_TICKETS) {
      const oldest = this.tickets.keys().next().value;
      if (oldest !== undefined) this.tickets.delete(oldest);
    }
    this.tickets.set(id, t);
    return id;
  }

  ticket(id: string): Ticket | null {
    const t = this.tickets.get(id);
    if (!t) return null;
    if (t.expires < Date.now()) {
      this.tickets.delete(id);
      return null;
    }
    return t;
  }

  /** Bytes other uploads to this storage still mean to write: room they have been promised. */
  reserved(storage: string, except?: string): number {
    let n = 0;
    for (const u of this.uploads.values()) if (u.storage === storage && u.id !== except) n += u.size - u.offset;
    return n;
  }

  counted(key: string): void {
    this.downloads.set(key, (this.downloads.get(key) ?? 0) + 1);
  }

  async sweep(now = Date.now()): Promise<void> {
    for (const [id, u] of this.uploads) {
      if (!u.busy && now - u.active > UPLOAD_IDLE_MS) {
        this.uploads.delete(id);
        await rm(u.tmp, { force: true }).catch(() => undefined);
      }
    }
    for (const [id, t] of this.tickets) if (t.expires < now) this.tickets.delete(id);
  }
}

const states = new WeakMap<object, FbState>();

export function stateOf(mod: FbContext): FbState {
  let s = states.get(mod);
  if (!s) {
    const storages = mod.services.storages;
    s = new FbState(mod.dataDir, (storage) => storages.describe(storage) !== null);
    states.set(mod, s);
  }
  return s;
}
