/** Writes a file so that a crash leaves either the old or the new content, never a mix. */
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export function writeFileAtomic(file: string, content: string, mode = 0o600): void {
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', mode);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkSync(tmp);
    throw err;
  }
  closeSync(fd);
  renameSync(tmp, file);
  syncDir(dirname(file));
}

/** A rename lives in its directory: sync the directory so the new name survives a power cut. */
export function syncDir(dir: string): void {
  try {
    const dfd = openSync(dir, 'r');
    try {
      fsyncSync(dfd);
    } finally {
      closeSync(dfd);
    }
  } catch {
    // Some filesystems refuse fsync on a directory; the file content is already durable.
  }
}
