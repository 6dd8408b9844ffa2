/**
 * A store kept beside the rules that a backup with secrets carries (the certificate store, the
 * ACME account keys): its rows as the contracts shape them, read for a backup and written back by a
 * restore. The daemon declares its own; a module declares one with `backup` in its spec.
 */
import type { BackupStoreName, BackupStoreRow } from '@lucky/contracts';

export interface BackupPart<N extends BackupStoreName = BackupStoreName> {
  name: N;
  /** Every row, for a backup with secrets. */
  dump(): BackupStoreRow<N>[];
  /** A row the schema accepts but the store would not (a certificate that is not its key's): why, else null. */
  check?(row: BackupStoreRow<N>): string | null;
  /**
   * Writes the rows inside the restore's transaction: a row replaces the one of its identity (a
   * certificate's name, an account's CA directory and key id); rows the backup does not have stay.
   */
  restore(rows: BackupStoreRow<N>[]): void;
}

/** The parts with their names' row types erased, as backups handle them. */
export type AnyBackupPart = { [N in BackupStoreName]: BackupPart<N> }[BackupStoreName];
