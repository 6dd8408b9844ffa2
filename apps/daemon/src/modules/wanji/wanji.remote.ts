/**
 * Talking to one Lucky device over its own API. The contracts' route definitions give the method,
 * the path and the schema of the answer, so a device's answers are read with the same types its
 * daemon wrote them with. The token travels as `Authorization: Bearer`, the reader's language as
 * `lucky-lang` (the device's own messages come back in it); the token never appears in an error.
 */
import { buildPath, LANG_HEADER, normalizePin, Ret, type Lang, type Msg, type RouteDef, type RouteInput, type RouteResponse, type WanjiDevice } from '@lucky/contracts';
import type { HttpClients } from '../../lib/http/clients.js';
import type { HttpResponse } from '../../lib/http/request.js';
import { MsgError, msgOf } from '../../lib/msgerror.js';

/** A failure of a call to a device, as a message, with the `ret` to answer it with here. */
export class RemoteFailure extends MsgError {
  constructor(
    msg: Msg,
    /** The device's own `ret` when it answered with one, else Ret.failed. */
    readonly ret: number,
  ) {
    super(msg);
  }
}

/** Any error of a remote call as a RemoteFailure (a transport error is Ret.failed). */
export function remoteFailure(err: unknown): RemoteFailure {
  return err instanceof RemoteFailure ? err : new RemoteFailure(msgOf(err), Ret.failed);
}

export type DeviceLink = Pick<WanjiDevice, 'url' | 'token' | 'pin' | 'ca'>;

export interface RemoteOptions {
  timeoutMs: number;
  lang: Lang;
  /** Ends every call early (a poll's deadline). */
  signal?: AbortSignal;
  maxBytes?: number;
}

type Envelope = { ret: number; msg?: string } & Record<string, unknown>;

export interface Remote {
  /** The route's answer, read with its schema; a `ret` ≠ 0 or an answer of another shape throws a RemoteFailure. */
  call<D extends RouteDef>(def: D, input: RouteInput<D>): Promise<RouteResponse<D>>;
  /** The answer's envelope as sent (ret 0), for callers that read parts of it themselves. */
  envelope<D extends RouteDef>(def: D, input: RouteInput<D>): Promise<Envelope>;
  /** A download route's body and headers (an envelope instead of a file throws). */
  download<D extends RouteDef>(def: D, input: RouteInput<D>): Promise<HttpResponse>;
}

const MAX_BYTES = 16 * 1024 * 1024;

/** The device's calls through the shared clients; `pin` and `ca` decide which certificate it may show. */
export function remoteOf(clients: HttpClients, device: DeviceLink, o: RemoteOptions): Remote {
  const base = device.url.replace(/\/+$/, '');
  const http = clients.client({
    timeoutMs: o.timeoutMs,
    maxBytes: o.maxBytes ?? MAX_BYTES,
    ...(device.pin ? { pin: normalizePin(device.pin) } : {}),
    ...(device.ca.trim() ? { ca: device.ca } : {}),
  });

  async function send(def: RouteDef, input: { params?: unknown; query?: unknown; body?: unknown }): Promise<HttpResponse> {
    const url = new URL(base + buildPath(def.path, (input.params ?? {}) as Record<string, string>));
    for (const [k, v] of Object.entries((input.query ?? {}) as Record<string, unknown>)) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { authorization: `Bearer ${device.token}`, [LANG_HEADER]: o.lang, accept: 'application/json' };
    if (input.body !== undefined) headers['content-type'] = 'application/json';
    try {
      return await http({
        method: def.method,
        url: url.toString(),
        headers,
        ...(input.body !== undefined ? { body: JSON.stringify(input.body) } : {}),
        ...(o.signal ? { signal: o.signal } : {}),
      });
    } catch (err) {
      throw new RemoteFailure({ key: 'wanjiUnreachable', vars: { url: base, detail: msgOf(err) } }, Ret.failed);
    }
  }

  const notLucky = (detail: string) => new RemoteFailure({ key: 'wanjiNotLucky', vars: { detail } }, Ret.failed);

  function envelopeOf(res: HttpResponse): Envelope {
    if (res.status !== 200) throw notLucky(`HTTP ${res.status}`);
    let body: unknown;
    try {
      body = JSON.parse(res.text);
    } catch {
      throw notLucky(res.text.slice(0, 120));
    }
    const env = body as Envelope;
    if (!env || typeof env !== 'object' || typeof env.ret !== 'number') throw notLucky(res.text.slice(0, 120));
    if (env.ret === Ret.sessionInvalid) throw new RemoteFailure({ key: 'wanjiTokenRefused' }, Ret.denied);
    if (env.ret !== Ret.ok) throw new RemoteFailure({ key: 'wanjiRemoteSaid', vars: { detail: String(env.msg ?? `ret ${env.ret}`) } }, env.ret);
    return env;
  }

  async function envelope<D extends RouteDef>(def: D, input: RouteInput<D>): Promise<Envelope> {
    return envelopeOf(await send(def, input as never));
  }

  return {
    envelope,
    async call(def, input) {
      const env = await envelope(def, input);
      const r = def.response.safeParse(env);
      if (!r.success) {
        const issue = r.error.issues[0];
        throw notLucky(`${def.path}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim());
      }
      return r.data as RouteResponse<typeof def>;
    },
    async download(def, input) {
      const res = await send(def, input as never);
      if (res.status === 200 && /attachment/i.test(res.headers['content-disposition'] ?? '')) return res;
      envelopeOf(res);
      throw notLucky(res.text.slice(0, 120));
    },
  };
}
