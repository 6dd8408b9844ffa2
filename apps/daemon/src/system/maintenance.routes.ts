/** Backup and restore, updates, the system service, and file uploads read back as base64. */
import type { FastifyInstance } from 'fastify';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ret, coreRoutes, message } from '@lucky/contracts';
import { AppError, fail } from '../core/envelope.js';
import { sayer } from '../core/logs.js';
import { addRoute } from '../core/routes.js';
import type { AppDeps } from '../deps.js';
import { applyRestore, BackupError, backupFileName, backupText, createBackup, PendingRestores, prepareRestore } from './backup.js';
import { installService, serviceStatus, systemdAvailable, uninstallService, UNIT_NAME } from './service.js';
import { human, MAX_UPLOAD, readUpload, saveUpload } from './upload.js';
import type { Updater } from './update.js';

const here = dirname(fileURLToPath(import.meta.url));
/** Where the built directories of this install live (the repository root in a checkout). */
export const INSTALL_ROOT = resolve(here, '..', '..', '..', '..');

export function maintenanceRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { db, config } = deps;
  const pending = new PendingRestores();
  // Updates are rare: their code (tar reader, staging) is imported on the first update call.
  let updating: Promise<{ updater: Updater; UpdateError: typeof import('./update.js').UpdateError; UpdateTooLarge: typeof import('./update.js').UpdateTooLarge }> | undefined;
  const update = () =>
    (updating ??= import('./update.js').then((m) => ({ updater: new m.Updater(deps.installRoot ?? INSTALL_ROOT, deps.dataDir, deps.version), UpdateError: m.UpdateError, UpdateTooLarge: m.UpdateTooLarge })));

  addRoute(app, coreRoutes.configureDownload, async ({ query, reply, req }) => {
    const secrets = query.secrets === '1';
    // Without secrets the stores (private keys) are left out: no module is loaded for them.
    const parts = secrets ? await deps.backupParts() : [];
    const backup = createBackup({ db, config, modules: deps.modules.definitions(), version: deps.version, secrets, parts });
    sayer(req.log).info({ key: 'logBackupDownloaded', vars: { secrets: { key: backup.secrets ? 'logWithSecrets' : 'logWithoutSecrets' } } }, { ip: req.ip });
    return reply
      .header('content-disposition', `attachment; filename="${backupFileName(backup.created)}"`)
      .type('application/json; charset=utf-8')
      .send(backupText(backup));
  });

  addRoute(app, coreRoutes.configureUpload, async ({ req }) => {
    const file = await readUpload(req, 64 * 1024 * 1024);
    let raw: unknown;
    try {
      raw = JSON.parse(file.data.toString('utf8'));
    } catch {
      throw fail(Ret.badRequest, 'backupInvalid', { detail: 'not JSON' });
    }
    try {
      const hasStores = typeof raw === 'object' && raw !== null && 'stores' in raw;
      const restore = prepareRestore(raw, { db, config, modules: deps.modules.definitions(), parts: hasStores ? await deps.backupParts() : [] });
      return { key: pending.add(restore), summary: restore.summary };
    } catch (err) {
      if (err instanceof BackupError) throw fail(Ret.badRequest, 'backupInvalid', { detail: err.message });
      throw err;
    }
  });

  addRoute(app, coreRoutes.restoreConfirm, async ({ query, req }) => {
    const restore = pending.take(query.key);
    if (!restore) throw fail(Ret.notFound, 'restoreKeyUnknown');
    try {
      await deps.snapshots.take({ key: 'snapBeforeRestore' });
    } catch (err) {
      // No way back, no restore: it replaces every module's rules.
      throw new AppError(Ret.failed, 'snapshotFailed', { detail: (err as Error).message });
    }
    applyRestore(restore, { db, config });
    await deps.modules.reload();
    sayer(req.log).warn({ key: 'logRestored', vars: { modules: Object.keys(restore.modules).join(', ') || '-' } }, { ip: req.ip });
    return { msg: message(req.lang, 'restoreDone') };
  });

  addRoute(app, coreRoutes.fileBase64, async ({ req }) => {
    const file = await readUpload(req, 4 * 1024 * 1024);
    return { name: file.name, size: file.data.length, data: file.data.toString('base64') };
  });

  addRoute(app, coreRoutes.luckyService, ({ query, req }) => {
    if (!systemdAvailable()) throw fail(Ret.notAvailable, 'serviceUnavailable');
    if (query.option === 'install') {
      installService({
        execPath: process.execPath,
        main: resolve(process.argv[1] ?? join(here, '..', 'main.js')),
        dataDir: deps.dataDir,
        workDir: process.cwd(),
      });
      return { msg: message(req.lang, 'serviceInstalled', { unit: UNIT_NAME }), status: serviceStatus() };
    }
    if (query.option === 'uninstall') {
      uninstallService();
      return { msg: message(req.lang, 'serviceRemoved', { unit: UNIT_NAME }), status: serviceStatus() };
    }
    const status = serviceStatus();
    return { msg: message(req.lang, 'serviceStatus', { status }), status };
  });

  addRoute(app, coreRoutes.updateUpload, async ({ req }) => {
    const { updater, UpdateError, UpdateTooLarge } = await update();
    // To a file first, then unpacked from it as a stream: neither the upload nor what it unpacks to is held in memory.
    const upload = await saveUpload(req, MAX_UPLOAD, updater.workDir);
    try {
      const info = await updater.stage(createReadStream(upload.path));
      sayer(req.log).warn({ key: 'logUpdateStaged', vars: { version: info.version } }, { ip: req.ip });
      return { info };
    } catch (err) {
      if (err instanceof UpdateTooLarge) throw fail(Ret.badRequest, 'updateTooLarge', { max: human(err.max) });
      if (err instanceof UpdateError) throw fail(Ret.badRequest, 'updateInvalid', { detail: err.message });
      throw err;
    } finally {
      await rm(upload.path, { force: true });
    }
  });

  addRoute(app, coreRoutes.updateConfirm, async ({ req, reply }) => {
    const { updater, UpdateError } = await update();
    if (!updater.staged()) throw fail(Ret.notFound, 'updateNone');
    try {
      const info = updater.apply();
      sayer(req.log).warn({ key: 'logUpdateApplied', vars: { version: info.version } }, { ip: req.ip });
    } catch (err) {
      if (err instanceof UpdateError) throw new AppError(Ret.failed, 'updateInvalid', { detail: err.message });
      throw err;
    }
    reply.raw.once('finish', () => deps.restart());
    return { msg: message(req.lang, 'updateApplied') };
  });

  addRoute(app, coreRoutes.updateCancel, async ({ req }) => {
    const { updater } = await update();
    if (!updater.cancel()) throw fail(Ret.notFound, 'updateNone');
    return { msg: message(req.lang, 'updateCancelled') };
  });
}
