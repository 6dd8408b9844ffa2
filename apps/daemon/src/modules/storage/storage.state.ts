/**
 * What the module keeps in memory beside its rules, shared by the service, the view and the delete
 * guard: the walked usage of each directory and which services serve which storages. Kept per
 * module context (one per loaded module) so two daemons in one test process never mix.
 */
import type { storageContract } from '@lucky/contracts';
import type { ModuleContext } from '../../core/module.js';
import type { RemoteClient } from './remote/index.js';
import { UsageCache } from './storage.usage.js';

export type StorageContext = ModuleContext<typeof storageContract, never, import('./storage.engine.js').StorageEngine>;

export class StorageState {
  readonly usage = new UsageCache();
  /** Moves on whenever a storage starts, changes or stops: grants older than that are read again. */
  version = 0;
  /** The clients of the remote storages running now, by storage key (their engine holds them). */
  readonly remotes = new Map<string, RemoteClient>();
  /** service → the storage keys it serves now (setUsage). */
  private serving = new Map<string, Set<string>>();

  setUsage(service: string, storages: string[]): void {
    if (storages.length === 0) this.serving.delete(service);
    else this.serving.set(service, new Set(storages));
  }

  usedBy(storage: string): string[] {
    return [...this.serving].filter(([, keys]) => keys.has(storage)).map(([service]) => service).sort();
  }
}

const states = new WeakMap<object, StorageState>();

export function stateOf(mod: StorageContext): StorageState {
  let s = states.get(mod);
  if (!s) {
    s = new StorageState();
    states.set(mod, s);
  }
  return s;
}
