/**
 * What the system panel does: backup download, restore and update uploads (each confirmed by the
 * user first), restart (waiting for the daemon to answer again), the systemd service, garbage
 * collection. One action runs at a time; its failure is kept for the panel.
 */
import { Ret, coreRoutes, type BackupSummary } from '@lucky/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, call } from '../../api';
import { pushNotice } from '../../api/notices';
import { formatBytes } from '../../lib/helpers';
import { freedMemory } from '../safe/helpers';
import { probeDaemon, waitForRestart } from '../safe/restart';
import { downloadFile, uploadFile } from '../safe/transfer';
import { systemText } from './system.i18n';

export const RESTART_WAIT_S = 90;
export type UpdateInfo = { version: string; current: string; files: number; size: number };
export type RestartWaiting = { state: 'waiting' | 'timeout' | 'back' } | null;

const errText = (err: unknown) => (err instanceof ApiError ? err.message : String(err));

async function startTime(): Promise<number | undefined> {
  const p = await probeDaemon();
  return p.state === 'up' ? p.startTime : undefined;
}

export function useSystemActions() {
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [restore, setRestore] = useState<{ key: string; summary: BackupSummary } | null>(null);
  const [update, setUpdate] = useState<UpdateInfo | null>(null);
  const [waiting, setWaiting] = useState<RestartWaiting>(null);
  const [service, setService] = useState<{ ok: boolean; msg: string; status?: string } | null>(null);
  const [gc, setGc] = useState<string | null>(null);

  /** Runs one action under `id` (its button shows busy); a failure goes to `error`. */
  const run = async (id: string, fn: () => Promise<void>) => {
    setBusy(id);
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError(errText(err));
    } finally {
      setBusy(null);
    }
  };

  /** Waits for the daemon to come back, then reloads (a new build may have come with it). */
  const awaitRestart = async (before: number | undefined) => {
    setWaiting({ state: 'waiting' });
    const back = await waitForRestart({ probe: () => probeDaemon(), ...(before !== undefined ? { before } : {}), timeoutMs: RESTART_WAIT_S * 1000 });
    if (!back) return setWaiting({ state: 'timeout' });
    setWaiting({ state: 'back' });
    setTimeout(() => window.location.reload(), 800);
  };

  /** Sends what the user confirmed; what was asked about is put away either way. */
  const confirmed = async (send: () => Promise<void>, forget: () => void) => {
    try {
      await send();
    } finally {
      forget();
    }
  };

  return {
    busy,
    error,
    clearError: () => setError(null),
    restore,
    cancelRestore: () => setRestore(null),
    update,
    waiting,
    service,
    clearService: () => setService(null),
    gc,
    download: (secrets: boolean) =>
      run(secrets ? 'backup1' : 'backup0', async () => {
        const name = await downloadFile(coreRoutes.configureDownload, { query: { secrets: secrets ? '1' : '0' } }, 'lucky-backup.json');
        pushNotice(systemText('backupSaved', { name }), 'green');
      }),
    uploadBackup: (f: File) =>
      run('restore', async () => {
        const r = await uploadFile<{ key: string; summary: BackupSummary }>(coreRoutes.configureUpload, f, f.name);
        setRestore({ key: r.key, summary: r.summary });
      }),
    confirmRestore: () =>
      run('restoreConfirm', async () => {
        if (!restore) return;
        const send = async () => {
          const r = await call(coreRoutes.restoreConfirm, { query: { key: restore.key } }, { silent: true });
          pushNotice(r.msg || systemText('restoreDone'), 'green');
        };
        await confirmed(send, () => setRestore(null));
        // Everything may have changed: settings, modules, rules.
        await queryClient.invalidateQueries();
      }),
    uploadUpdate: (f: File) =>
      run('update', async () => {
        const r = await uploadFile<{ info: UpdateInfo }>(coreRoutes.updateUpload, f, f.name);
        setUpdate(r.info);
      }),
    applyUpdate: () =>
      run('updateApply', async () => {
        const before = await startTime();
        await confirmed(async () => void (await call(coreRoutes.updateConfirm, { body: {} }, { silent: true })), () => setUpdate(null));
        void awaitRestart(before);
      }),
    discardUpdate: () =>
      run('updateDiscard', async () => {
        const send = async () => {
          pushNotice((await call(coreRoutes.updateCancel, {}, { silent: true })).msg, 'green');
        };
        await confirmed(send, () => setUpdate(null));
      }),
    restart: () =>
      run('restart', async () => {
        const before = await startTime();
        await call(coreRoutes.rebootProgram, {}, { silent: true });
        void awaitRestart(before);
      }),
    serviceCall: (option: 'install' | 'uninstall' | 'status') =>
      run(`service-${option}`, async () => {
        setService(null);
        try {
          const r = await call(coreRoutes.luckyService, { query: { option } }, { silent: true });
          setService({ ok: true, msg: r.msg, status: r.status });
        } catch (err) {
          // No systemd here: said in the panel, not as a failure.
          if (err instanceof ApiError && err.ret === Ret.notAvailable) setService({ ok: false, msg: err.message });
          else throw err;
        }
      }),
    runGc: () =>
      run('gc', async () => {
        const r = await call(coreRoutes.execGc, {}, { silent: true });
        const freed = freedMemory(r.before, r.after);
        const used = formatBytes(r.after.heapUsed);
        setGc(`${r.msg ? `${r.msg}: ` : ''}${systemText('gcResult', { heap: formatBytes(freed.heap), rss: formatBytes(freed.rss), used })}`);
      }),
  };
}

export type SystemActions = ReturnType<typeof useSystemActions>;
