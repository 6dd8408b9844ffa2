/**
 * Uploads and downloads (backups, release archives): not JSON requests, so not `call`, but the same
 * URL, token and language headers, the same envelope reading, and the same way of ending a lost
 * session. Used by the security screen and the settings page's system panel.
 */
import { LANG_HEADER, Ret, TOKEN_HEADER, coreRoutes, type RouteDef } from '@lucky/contracts';
import { ApiError, api, call } from '../../api';
import { lang } from '../../i18n';
import { storage } from '../../storage';

/** Uploads may be large (a release archive is up to 128 MB) and slow links are common. */
export const TRANSFER_TIMEOUT_MS = 5 * 60_000;

/** The headers `call` sends, without the JSON content type. */
export function authHeaders(): Record<string, string> {
  const headers: Record<string, string> = { [LANG_HEADER]: lang };
  const token = storage.get('token');
  if (token) headers[TOKEN_HEADER] = token;
  return headers;
}

/** The file name from a Content-Disposition header, or the fallback. */
export function fileNameFrom(disposition: string | null, fallback: string): string {
  if (!disposition) return fallback;
  const star = /filename\*=(?:UTF-8'')?([^;]+)/i.exec(disposition);
  if (star?.[1]) {
    try {
      return decodeURIComponent(star[1].trim().replace(/^"|"$/g, ''));
    } catch {
      // fall through to the plain name
    }
  }
  const plain = /filename="?([^";]+)"?/i.exec(disposition);
  return plain?.[1]?.trim() || fallback;
}

type Envelope = { ret: number; msg?: string } & Record<string, unknown>;

/**
 * A session the daemon no longer knows: hand it to the client, which forgets the token and shows
 * /login the one way the console does (api/index.ts exports no direct hook for this).
 */
async function sessionLost(msg: string): Promise<never> {
  await call(coreRoutes.modulesList, {}, { silent: true }).catch(() => undefined);
  throw new ApiError(msg, 'session', Ret.sessionInvalid);
}

/** Reads an answer as `call` does: transport errors, the envelope, ret -1. Errors are thrown, not shown. */
async function readEnvelope(res: Response, what: string): Promise<Envelope> {
  if (!res.ok) throw new ApiError(`HTTP ${res.status} ${what}`, 'transport', undefined, res.status);
  let body: Envelope;
  try {
    body = (await res.json()) as Envelope;
  } catch {
    throw new ApiError(`not JSON: ${what}`, 'transport', undefined, res.status);
  }
  if (!body || typeof body !== 'object' || typeof body.ret !== 'number') throw new ApiError(`no envelope: ${what}`, 'backend');
  if (body.ret === Ret.sessionInvalid) return sessionLost(body.msg ?? 'session invalid');
  if (body.ret !== Ret.ok) throw new ApiError(body.msg ?? `ret ${body.ret}`, 'backend', body.ret);
  return body;
}

async function timed<T>(run: (signal: AbortSignal) => Promise<T>, what: string, timeoutMs: number): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    return await run(controller.signal);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError(controller.signal.aborted ? `${what}: timeout after ${timeoutMs} ms` : `${what}: ${(err as Error).message}`, 'transport');
  } finally {
    clearTimeout(timer);
  }
}

/** Posts one file as multipart/form-data (field `file`) and returns the success body. */
export async function uploadFile<T>(def: RouteDef, file: Blob, fileName: string, timeoutMs = TRANSFER_TIMEOUT_MS): Promise<T> {
  const what = `${def.method} ${def.path}`;
  return timed(
    async (signal) => {
      const form = new FormData();
      form.append('file', file, fileName);
      const res = await fetch(api.url(def), { method: def.method, headers: authHeaders(), body: form, credentials: 'omit', signal });
      return (await readEnvelope(res, what)) as T;
    },
    what,
    timeoutMs,
  );
}

/**
 * Fetches a download and hands it to the browser as a file. A JSON envelope with ret ≠ 0 instead
 * of the file (refused, session lost) becomes an ApiError.
 */
export async function downloadFile(
  def: RouteDef,
  request: { query?: Record<string, string>; params?: Record<string, string>; body?: unknown },
  fallbackName: string,
  timeoutMs = TRANSFER_TIMEOUT_MS,
): Promise<string> {
  const what = `${def.method} ${def.path}`;
  return timed(
    async (signal) => {
      const body = request.body === undefined ? {} : { body: JSON.stringify(request.body) };
      const headers = request.body === undefined ? authHeaders() : { ...authHeaders(), 'content-type': 'application/json' };
      const res = await fetch(api.url(def, { query: request.query ?? {}, params: request.params ?? {} }), { method: def.method, headers, credentials: 'omit', signal, ...body });
      if (!res.ok) throw new ApiError(`HTTP ${res.status} ${what}`, 'transport', undefined, res.status);
      const disposition = res.headers.get('content-disposition');
      const blob = await res.blob();
      if (!disposition || !/attachment/i.test(disposition)) {
        // Not a file: the daemon answered with its envelope (an error, or the session is gone).
        let body: Envelope | undefined;
        try {
          body = JSON.parse(await blob.text()) as Envelope;
        } catch {
          body = undefined;
        }
        if (body && typeof body.ret === 'number' && body.ret !== Ret.ok) {
          if (body.ret === Ret.sessionInvalid) return sessionLost(body.msg ?? 'session invalid');
          throw new ApiError(body.msg ?? `ret ${body.ret}`, 'backend', body.ret);
        }
      }
      const name = fileNameFrom(disposition, fallbackName);
      saveBlob(blob, name);
      return name;
    },
    what,
    timeoutMs,
  );
}

/** Lets the browser save a blob under a name. */
export function saveBlob(blob: Blob, name: string): void {
  const href = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
}

/**
 * Copies text. navigator.clipboard exists only in secure contexts (https or localhost), and the
 * console is often reached over plain http on a LAN address, so fall back to a selected textarea.
 */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall back below
  }
  const ta = document.createElement('textarea');
  ta.value = text;
  ta.setAttribute('readonly', '');
  ta.style.position = 'fixed';
  ta.style.top = '-1000px';
  document.body.appendChild(ta);
  ta.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  ta.remove();
  return ok;
}
