/**
 * JSON REST calls of the providers that speak plain REST (a token in a header): the request, the
 * answer's JSON, and an error that quotes the provider's own message when the answer is not 2xx.
 */
import { excerpt, type HttpResponse } from '../../http/request.js';
import { MsgError } from '../../msgerror.js';
import { httpError, zoneNotFound, type ProviderContext } from './types.js';

/** The provider's own words in an error answer: its message (and code) where the JSON has one, else the start of the text. */
export function errorDetail(res: HttpResponse): string {
  try {
    const e = JSON.parse(res.text) as Record<string, unknown>;
    const first = (v: unknown): Record<string, unknown> | undefined => (Array.isArray(v) ? (v[0] as Record<string, unknown>) : undefined);
    const nested = typeof e.error === 'object' && e.error ? (e.error as Record<string, unknown>) : undefined;
    const text = [e.message, e.msg, nested?.message, e.error_description, typeof e.error === 'string' ? e.error : undefined, e.detail, first(e.errors)?.reason, first(e.errors)?.message, e.Message, e.error_msg].find(
      (v): v is string => typeof v === 'string' && v !== '',
    );
    const code = [e.code, nested?.code, e.id, e.Code, e.error_code, e.errorCode].map((v) => (typeof v === 'number' ? String(v) : v)).find((v): v is string => typeof v === 'string' && v !== '');
    if (text) return code && code !== String(res.status) && !text.includes(code) ? `${code} ${text}` : text;
  } catch {
    /* not JSON */
  }
  return excerpt(res);
}

/** The answer's JSON (undefined for an empty body); unless 2xx, an error with the provider's own words. */
export function readJson<T>(res: HttpResponse, provider: string): T {
  if (res.status < 200 || res.status > 299) throw httpError(res, provider, errorDetail(res));
  if (res.text.trim() === '') return undefined as T;
  try {
    return JSON.parse(res.text) as T;
  } catch {
    throw new MsgError({ key: 'httpNotJson', vars: { status: res.status, detail: excerpt(res, 200) } });
  }
}

export interface Rest {
  /** The answer's JSON (undefined for an empty body); an error unless 2xx. */
  call<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** The same, null when the answer is 404. */
  find<T>(method: string, path: string): Promise<T | null>;
  /** `root` when GET of its path answers, `dnsZoneNotFound` on 404. */
  zone(path: string, root: string): Promise<string>;
}

export function rest(ctx: ProviderContext, provider: string, headers: Record<string, string>): Rest {
  const send = async (method: string, path: string, body?: unknown): Promise<HttpResponse> =>
    ctx.http({
      method,
      url: `${ctx.base}${path}`,
      headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  const read = <T>(res: HttpResponse): T => readJson<T>(res, provider);
  const find = async <T>(method: string, path: string): Promise<T | null> => {
    const res = await send(method, path);
    return res.status === 404 ? null : read<T>(res);
  };
  return {
    call: async (method, path, body) => read(await send(method, path, body)),
    find,
    zone: async (path, root) => {
      if ((await find('GET', path)) === null) throw zoneNotFound(provider, root);
      return root;
    },
  };
}
