/**
 * `backups`: the configuration backup of Settings → backup, written as a file into a folder (the
 * scheduled tasks' "write a backup"), the oldest beyond `keep` removed. Provided by the daemon
 * (system/backup.ts): the file is made by the same function as the download, byte for byte the
 * same format, so it restores the same way.
 */
export interface BackupWritten {
  /** The file written, absolute. */
  path: string;
  bytes: number;
  /** Older backups of the folder removed to keep the newest `keep`. */
  removed: string[];
}

export interface BackupsService {
  /** Writes a backup into `folder` (created when missing); throws an Error saying why not. */
  write(folder: string, opts: { keep: number; secrets: boolean }): Promise<BackupWritten>;
}
