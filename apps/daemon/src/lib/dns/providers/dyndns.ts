/**
 * The dyndns2 update protocol (`GET /nic/update?hostname=&myip=`, basic auth, plain-text answers
 * `good`/`nochg`/`badauth`/`nohost`…), spoken by the dyndns2 provider at the user's server, by No-IP,
 * and by Hurricane Electric (which also takes `txt=`, and the record's key as `password`).
 * Write-only: the answer says whether the address changed (`nochg` is `same`).
 */
import { MsgError } from '../../msgerror.js';
import { addressType, httpError, type DnsProvider, type ProviderContext, type RecordWant, type SetOutcome } from './types.js';

/** Sends one update; `nochg` is `same`, `good` is `updated`, every refusal a message of its own. */
export async function dyndnsUpdate(
  ctx: ProviderContext,
  o: { provider: string; url: string; host: string; params: Record<string, string>; user?: string; form?: boolean },
): Promise<SetOutcome> {
  const query = new URLSearchParams({ hostname: o.host, ...o.params }).toString();
  const headers: Record<string, string> = { 'user-agent': 'Lucky/1 dyndns2' };
  if (o.user !== undefined) headers.authorization = `Basic ${Buffer.from(`${o.user}:${ctx.creds.secret}`).toString('base64')}`;
  const res = o.form
    ? await ctx.http({ method: 'POST', url: o.url, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body: query })
    : await ctx.http({ url: `${o.url}?${query}`, headers });
  const answer = res.text.trim().split(/\s+/)[0] ?? '';
  const vars = { provider: o.provider, host: o.host, code: answer || String(res.status) };
  if (answer === 'good') return 'updated';
  if (answer === 'nochg') return 'same';
  if (answer === 'badauth' || res.status === 401) throw new MsgError({ key: 'dnsDyndnsBadAuth', vars });
  if (answer === 'nohost' || answer === 'notfqdn' || answer === 'numhost') throw new MsgError({ key: 'dnsDyndnsNoHost', vars });
  if (answer === 'abuse' || answer === '!donator' || answer === 'badagent') throw new MsgError({ key: 'dnsDyndnsBlocked', vars });
  if (answer === '911' || answer === 'dnserr') throw new MsgError({ key: 'dnsDyndnsServerError', vars });
  if (res.status < 200 || res.status > 299) throw httpError(res, o.provider);
  throw new MsgError({ key: 'dnsDyndnsRefused', vars: { provider: o.provider, host: o.host, answer: res.text.trim().slice(0, 200) } });
}

/** A dyndns2 server at `url(ctx)`, addresses only, the account's user name and password. */
export function dyndnsProvider(name: 'dyndns2' | 'noip', title: string, base: string, path: string): DnsProvider {
  return {
    name,
    base,
    ...(name === 'dyndns2' ? { baseOf: (creds) => creds.server } : {}),
    set: (ctx, want: RecordWant) => {
      addressType(want, title);
      return dyndnsUpdate(ctx, { provider: title, url: `${ctx.base}${path}`, host: want.domain.full, params: { myip: want.value }, user: ctx.creds.id });
    },
  };
}

export const dyndns2 = dyndnsProvider('dyndns2', 'dyndns2', '', '');
export const noip = dyndnsProvider('noip', 'No-IP', 'https://dynupdate.no-ip.com', '/nic/update');

/** Hurricane Electric: the record's own key as `password`, `myip` for addresses, `txt` for TXT (the record must exist, made dynamic). */
export const he: DnsProvider = {
  name: 'he',
  base: 'https://dyn.dns.he.net',
  set: (ctx, want) =>
    dyndnsUpdate(ctx, {
      provider: 'Hurricane Electric',
      url: `${ctx.base}/nic/update`,
      host: want.domain.full,
      params: { password: ctx.creds.secret, ...(want.type === 'TXT' ? { txt: want.value } : { myip: want.value }) },
      form: true,
    }),
};
