/**
 * The one fetch wrapper (spec sections 4, 7, 8). Every call of the console goes through `call`:
 * base `./`, 5000 ms timeout, no cookies, JSON, the session token and language headers, a
 * time-derived `_` parameter; `ret -1` or the 3rd transport failure in a row ends the session.
 */
import {
  LANG_HEADER,
  Ret,
  TOKEN_HEADER,
  buildPath,
  type Lang,
  type RouteDef,
  type RouteInput,
  type RouteResponse,
} from '@lucky/contracts';

export const REQUEST_TIMEOUT_MS = 5000;
/** More than this many consecutive transport failures go to /login (spec section 9). */
export const FAILURE_THRESHOLD = 2;

export type ApiErrorKind = 'transport' | 'session' | 'backend';

export class ApiError extends Error {
  constructor(
    message: string,
    readonly kind: ApiErrorKind,
    /** The envelope's ret for backend and session errors. */
    readonly ret?: number,
    /** HTTP status for transport errors answered by a server. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface CallOptions {
  /** Failures are not shown to the user (module list, version, settings, logout). */
  silent?: boolean;
  signal?: AbortSignal;
}

export interface ClientDeps {
  /** Where `./` points; the page's own directory by default. */
  baseUrl: () => string;
  token: () => string | undefined;
  lang: () => Lang;
  /** The session is over: forget the token and show /login. */
  onSessionLost: (reason: 'session' | 'transport') => void;
  /** A message from the backend for the user. */
  onBackendError: (message: string) => void;
  fetch?: typeof fetch;
  now?: () => number;
  timeoutMs?: number;
  log?: (...args: unknown[]) => void;
}

type Envelope = { ret: number; msg?: string } & Record<string, unknown>;

export interface Client {
  call<D extends RouteDef>(def: D, input: RouteInput<D>, opts?: CallOptions): Promise<RouteResponse<D>>;
  /** The URL `call` would fetch, for links (downloads) and tests. */
  url(def: RouteDef, input?: { params?: unknown; query?: unknown }): string;
  /** Consecutive transport failures so far. */
  readonly failures: number;
  resetFailures(): void;
}

function appendQuery(url: URL, query: unknown): void {
  if (!query || typeof query !== 'object') return;
  for (const [k, v] of Object.entries(query as Record<string, unknown>)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const item of v) url.searchParams.append(k, String(item));
    else url.searchParams.set(k, String(v));
  }
}

export function createClient(deps: ClientDeps): Client {
  let failures = 0;
  const now = deps.now ?? Date.now;
  const timeoutMs = deps.timeoutMs ?? REQUEST_TIMEOUT_MS;
  const log = deps.log ?? ((...a: unknown[]) => console.error(...a));

  function url(def: RouteDef, input: { params?: unknown; query?: unknown } = {}): string {
    const path = buildPath(def.path, (input.params ?? {}) as Record<string, string | number>);
    const u = new URL('.' + path, deps.baseUrl());
    appendQuery(u, input.query);
    u.searchParams.set('_', String(now()));
    return u.toString();
  }

  function transportFailure(err: ApiError, silent: boolean): never {
    failures += 1;
    if (!silent) log('[lucky] request failed:', err.message);
    if (failures > FAILURE_THRESHOLD) {
      failures = 0;
      deps.onSessionLost('transport');
    }
    throw err;
  }

  async function call<D extends RouteDef>(def: D, input: RouteInput<D>, opts: CallOptions = {}): Promise<RouteResponse<D>> {
    const silent = opts.silent === true;
    const parts = input as { params?: unknown; query?: unknown; body?: unknown };
    const headers: Record<string, string> = { accept: 'application/json', [LANG_HEADER]: deps.lang() };
    const token = deps.token();
    if (token) headers[TOKEN_HEADER] = token;
    const hasBody = parts.body !== undefined;
    if (hasBody) headers['content-type'] = 'application/json';

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onOuterAbort = () => controller.abort();
    opts.signal?.addEventListener('abort', onOuterAbort, { once: true });

    let res: Response;
    let body: Envelope;
    try {
      res = await (deps.fetch ?? fetch)(url(def, parts), {
        method: def.method,
        headers,
        credentials: 'omit',
        signal: controller.signal,
        ...(hasBody ? { body: JSON.stringify(parts.body) } : {}),
      });
      if (!res.ok) transportFailure(new ApiError(`HTTP ${res.status} ${def.method} ${def.path}`, 'transport', undefined, res.status), silent);
      try {
        body = (await res.json()) as Envelope;
      } catch {
        transportFailure(new ApiError(`not JSON: ${def.method} ${def.path}`, 'transport', undefined, res.status), silent);
      }
    } catch (err) {
      if (err instanceof ApiError) throw err;
      const reason = timedOut ? `timeout after ${timeoutMs} ms` : opts.signal?.aborted ? 'canceled' : (err as Error).message;
      // A request the caller canceled (a screen closing) is not the server's fault.
      if (opts.signal?.aborted && !timedOut) throw new ApiError(`${def.method} ${def.path}: ${reason}`, 'transport');
      transportFailure(new ApiError(`${def.method} ${def.path}: ${reason}`, 'transport'), silent);
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onOuterAbort);
    }

    failures = 0;
    if (!body || typeof body !== 'object' || typeof body.ret !== 'number') {
      throw new ApiError(`no envelope: ${def.method} ${def.path}`, 'backend');
    }
    if (body.ret === Ret.sessionInvalid) {
      deps.onSessionLost('session');
      throw new ApiError(body.msg ?? 'session invalid', 'session', body.ret);
    }
    if (body.ret !== Ret.ok) {
      const msg = body.msg ?? `ret ${body.ret}`;
      if (!silent) deps.onBackendError(msg);
      throw new ApiError(msg, 'backend', body.ret);
    }
    return body as RouteResponse<D>;
  }

  return {
    call,
    url,
    get failures() {
      return failures;
    },
    resetFailures() {
      failures = 0;
    },
  };
}
