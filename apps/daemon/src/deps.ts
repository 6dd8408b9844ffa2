/** What the routes need from the running daemon; built by runtime.ts, faked by nothing. */
import type { AnyBackupPart } from './core/backupparts.js';
import type { BaseConfigStore } from './core/baseconfig.js';
import type { Db } from './core/db.js';
import type { LoginGuard } from './core/loginguard.js';
import type { ProgramLog } from './core/logs.js';
import type { ModuleHost } from './core/modulehost.js';
import type { Sessions } from './core/sessions.js';
import type { Snapshots } from './core/snapshots.js';
import type { StatusSampler } from './core/status.js';
import type { ApiTokens } from './security/apitokens.js';
import type { Audit } from './security/audit.js';
import type { TwoFA } from './security/twofa.js';
import type { Oidc } from './security/oidc.js';

export interface AppDeps {
  version: string;
  dataDir: string;
  config: BaseConfigStore;
  db: Db;
  /** Copies of lucky.db to go back to: taken before anything rewrites much of it. */
  snapshots: Snapshots;
  sessions: Sessions;
  programLog: ProgramLog;
  modules: ModuleHost;
  /** The stores beside the rules that backups with secrets carry: the daemon's and the modules'. */
  backupParts(): Promise<AnyBackupPart[]>;
  guard: LoginGuard;
  apiTokens: ApiTokens;
  audit: Audit;
  twofa: TwoFA;
  oidc: Oidc;
  status: StatusSampler;
  supervisor: string;
  /** Where the console's built files are; missing directory → a short "not built" page. */
  consoleDir: string;
  /** Moves the admin listener; rejects with ListenError when the new address cannot be bound. */
  rebind(host: string, port: number): Promise<void>;
  /** The address the admin listener is on now ('' before listening). */
  listenAddress(): string;
  /** Where the built directories live, for updates (tests point it at a copy). */
  installRoot?: string;
  /** Graceful restart, called once the answer has been sent. */
  restart(): void;
}
