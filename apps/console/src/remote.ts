/**
 * Start-up remote info (spec section 4): every host is asked for /app/v2 in parallel, non-primary
 * hosts 300 ms later; the fastest valid `ret: 0` answer wins. Without network this falls back
 * quietly: local view, 'unknow' versions, the primary host as staticHost.
 */
import { INFO_HOSTS } from './config';
import { storage, type StoredItems } from './storage';

export const SECONDARY_DELAY_MS = 300;
export const PROBE_TIMEOUT_MS = 3000;
export const APP_INFO_PATH = '/app/v2';
/** Where app information is read when no host answered. */
export const FALLBACK_APP_INFO_PATH = '/aboutapp_v2';
export const UNKNOWN_VERSION = 'unknow';

export interface RemoteAppInfo {
  ret: number;
  lastVersion: { github: string; qqGroup: string };
  V2L?: unknown;
  staticHost?: string;
  appinfourl?: string;
}

export type RemoteState = Pick<
  StoredItems,
  'githubVersion' | 'qqGroupVersion' | 'V2L' | 'staticHost' | 'appinfourl' | 'showAboutView' | 'showLocalView'
>;

function valid(v: unknown): v is RemoteAppInfo {
  if (!v || typeof v !== 'object') return false;
  const o = v as Partial<RemoteAppInfo>;
  return o.ret === 0 && !!o.lastVersion && typeof o.lastVersion === 'object';
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (ms <= 0) return resolve();
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      reject(new Error('aborted'));
    });
  });

export interface ProbeDeps {
  fetch?: typeof fetch;
  now?: () => number;
  delayMs?: number;
  timeoutMs?: number;
}

/** Resolves to the state to store; never rejects. */
export async function probeRemoteInfo(hosts: string[], deps: ProbeDeps = {}): Promise<RemoteState> {
  const doFetch = deps.fetch ?? fetch;
  const now = deps.now ?? Date.now;
  const delay = deps.delayMs ?? SECONDARY_DELAY_MS;
  const primary = hosts[0] ?? '';
  const fallback: RemoteState = {
    githubVersion: UNKNOWN_VERSION,
    qqGroupVersion: UNKNOWN_VERSION,
    V2L: undefined,
    staticHost: primary,
    appinfourl: primary ? primary + FALLBACK_APP_INFO_PATH : '',
    showAboutView: false,
    showLocalView: true,
  };
  if (hosts.length === 0) return fallback;

  const stop = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Bounded even if a fetch ignored its abort signal.
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      stop.abort();
      reject(new Error('timeout'));
    }, deps.timeoutMs ?? PROBE_TIMEOUT_MS);
  });
  const ask = async (host: string, i: number): Promise<{ host: string; info: RemoteAppInfo }> => {
    await sleep(i === 0 ? 0 : delay, stop.signal);
    const res = await doFetch(`${host}${APP_INFO_PATH}?_=${now()}`, { credentials: 'omit', signal: stop.signal });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const info: unknown = await res.json();
    if (!valid(info)) throw new Error('invalid app info');
    return { host, info };
  };
  try {
    const { host, info } = await Promise.race([Promise.any(hosts.map(ask)), deadline]);
    return {
      githubVersion: String(info.lastVersion.github ?? UNKNOWN_VERSION),
      qqGroupVersion: String(info.lastVersion.qqGroup ?? UNKNOWN_VERSION),
      V2L: info.V2L,
      staticHost: info.staticHost || host,
      appinfourl: info.appinfourl || host + FALLBACK_APP_INFO_PATH,
      showAboutView: true,
      showLocalView: false,
    };
  } catch {
    return fallback;
  } finally {
    clearTimeout(timer);
    stop.abort(); // the slower hosts are not needed any more
  }
}

// A small store so the About screen re-renders when the probe ends.
let state: RemoteState | undefined;
const listeners = new Set<() => void>();

export function startRemoteProbe(hosts = INFO_HOSTS): Promise<void> {
  return probeRemoteInfo(hosts).then((s) => {
    state = s;
    storage.merge(s);
    listeners.forEach((l) => l());
  });
}

export function subscribeRemote(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** undefined while the probe is still running. */
export function getRemoteState(): RemoteState | undefined {
  return state;
}
