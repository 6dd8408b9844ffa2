/**
 * DNSPod's own API at dnsapi.cn with a DNSPod Token (`login_token=ID,Token`), as the DNSPod console
 * issues it (what ddns-go calls the DNSPod account): form POSTs of `Record.List`, `Record.Create`,
 * `Record.Modify` and `Record.Remove` by the domain's name; every answer is `{ status: { code,
 * message } }`, code "1" the only success ("-1" login failed, "-2" its API limit: both reported with
 * its code and words). A User-Agent naming the program is required.
 */
import type { DdnsCredentials } from '@lucky/contracts';
import { jsonOf } from '../../http/request.js';
import { recordsProvider } from './generic.js';
import { httpError, providerError, zoneNotFound, type ProviderContext, type RecordWant } from './types.js';

export const DNSPOD_TOKEN_BASE = 'https://dnsapi.cn';

/** A DNSPod Token rather than a Tencent Cloud key: its numeric ID in `id`, or the whole "ID,Token" in `secret`. */
export const isDnspodToken = (creds: DdnsCredentials): boolean => /^\d+$/.test(creds.id.trim()) || /^\d+,\S+$/.test(creds.secret.trim());
const loginToken = (creds: DdnsCredentials): string => (/^\d+,\S+$/.test(creds.secret.trim()) ? creds.secret.trim() : `${creds.id.trim()},${creds.secret.trim()}`);

interface TokenRecord {
  id: string;
  name: string;
  type: string;
  value: string;
  line: string;
}

/** No records (with error_on_empty=yes), and the codes of a domain that is not the account's. */
const EMPTY = '10';
const NOT_OWNER = new Set(['6', '9']);

async function call<T>(ctx: ProviderContext, action: string, params: Record<string, string>): Promise<T> {
  const res = await ctx.http({
    method: 'POST',
    url: `${ctx.base}/${action}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'Lucky DDNS/1.0 (lucky@localhost)', accept: 'application/json' },
    body: new URLSearchParams({ login_token: loginToken(ctx.creds), format: 'json', lang: 'en', error_on_empty: 'no', ...params }).toString(),
  });
  if (res.status < 200 || res.status > 299) throw httpError(res, 'DNSPod');
  const a = jsonOf<T & { status?: { code?: string; message?: string } }>(res);
  const code = String(a.status?.code ?? '');
  if (code === '1' || (code === EMPTY && action === 'Record.List')) return a;
  if (NOT_OWNER.has(code) && action === 'Record.List') throw zoneNotFound('DNSPod', params.domain ?? '');
  throw providerError('DNSPod', `${action}: ${code} ${a.status?.message ?? ''}`.trim());
}

const fields = (want: RecordWant, line: string) => ({ domain: want.domain.root, sub_domain: want.domain.sub, record_type: want.type, record_line: line, value: want.value, ttl: String(want.ttl) });

export const dnspodToken = recordsProvider<string, TokenRecord>(
  { name: 'dnspod', base: DNSPOD_TOKEN_BASE },
  {
    zone: async (_ctx, d) => d.root,
    async list(ctx, zone, ref) {
      const a = await call<{ records?: TokenRecord[] }>(ctx, 'Record.List', { domain: zone, sub_domain: ref.domain.sub });
      const line = ref.domain.params.RecordLine;
      const all = (a.records ?? []).filter((r) => r.name === ref.domain.sub && r.type === ref.type);
      const onLine = line ? all.filter((r) => r.line === line) : all;
      return onLine.length ? onLine : all;
    },
    valueOf: (r) => r.value,
    create: async (ctx, _zone, want) => {
      await call(ctx, 'Record.Create', fields(want, want.domain.params.RecordLine ?? '默认'));
    },
    update: async (ctx, _zone, rec, want) => {
      await call(ctx, 'Record.Modify', { ...fields(want, rec.line || '默认'), record_id: rec.id });
    },
    delete: async (ctx, zone, rec) => {
      await call(ctx, 'Record.Remove', { domain: zone, record_id: rec.id });
    },
  },
);
