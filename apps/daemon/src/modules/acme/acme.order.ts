/**
 * One certificate order from start to chain: the account, the order, each authorization answered
 * in turn (so that a name and its wildcard, which share one DNS-01 record name, never collide), the
 * CSR with a new key, finalize, download. What answers a challenge is the caller's `solver`.
 */
import type { AcmeKeyType, Msg } from '@lucky/contracts';
import type { HttpFn } from '../../lib/http/request.js';
import { MsgError } from '../../lib/msgerror.js';
import { AcmeClient, describeProblem, type AcmeAuthorization, type AcmeOrder } from './acme.client.js';
import { buildCsr, newCertKey } from './acme.csr.js';
import { accountKey, dnsTxtValue, keyAuthorization } from './acme.jws.js';

export type ChallengeType = 'http-01' | 'dns-01';

/** Makes one challenge answerable; resolves with its cleanup. */
export interface Solver {
  type: ChallengeType;
  /** `name`: the identifier (no `*.`); `value`: the key authorization (HTTP-01) or the TXT value (DNS-01). */
  present(name: string, token: string, value: string): Promise<() => Promise<void>>;
}

export interface OrderRequest {
  http: HttpFn;
  directoryUrl: string;
  accountKeyPem: string;
  email?: string;
  eab?: { kid: string; hmac: string };
  names: readonly string[];
  keyType: AcmeKeyType;
  /** The ARI id of the certificate this order renews (RFC 9773 `replaces`). */
  replaces?: string;
  solver: Solver;
  note(line: Msg): void;
  pollTimeoutMs?: number;
  nonceRetries?: number;
}

export interface Issued {
  cert: string;
  key: string;
  account: string;
  badNonces: number;
}

export async function orderCertificate(r: OrderRequest): Promise<Issued> {
  const acct = accountKey(r.accountKeyPem);
  const client = new AcmeClient(r.http, r.directoryUrl, acct, {
    note: r.note,
    ...(r.pollTimeoutMs ? { pollTimeoutMs: r.pollTimeoutMs } : {}),
    ...(r.nonceRetries !== undefined ? { nonceRetries: r.nonceRetries } : {}),
  });
  const account = await client.account({ ...(r.email ? { email: r.email } : {}), ...(r.eab ? { eab: r.eab } : {}) });
  const { url: orderUrl, order: first } = await client.newOrder(r.names, r.replaces);
  for (const authzUrl of first.authorizations) {
    const authz = (await client.get<AcmeAuthorization>(authzUrl)).body;
    const name = authz.identifier.value;
    if (authz.status === 'valid') {
      r.note({ key: 'acmeAuthzValid', vars: { name } });
      continue;
    }
    const ch = authz.challenges.find((c) => c.type === r.solver.type);
    if (!ch) throw new MsgError({ key: 'acmeNoChallenge', vars: { name, type: r.solver.type } });
    const keyAuth = keyAuthorization(ch.token, acct);
    const cleanup = await r.solver.present(name, ch.token, r.solver.type === 'dns-01' ? dnsTxtValue(keyAuth) : keyAuth);
    try {
      r.note({ key: 'acmeChallengeReady', vars: { name, type: r.solver.type } });
      await client.respond(ch.url);
      const done = await client.poll<AcmeAuthorization>(authzUrl, name, (a) => a.status !== 'pending');
      if (done.status !== 'valid') {
        const err = done.challenges.find((c) => c.type === r.solver.type)?.error;
        throw new MsgError({ key: 'acmeChallengeInvalid', vars: { name, detail: err ? describeProblem(err) : done.status } });
      }
      r.note({ key: 'acmeAuthzValid', vars: { name } });
    } finally {
      await cleanup();
    }
  }
  const ready = await client.poll<AcmeOrder>(orderUrl, 'order', (o) => o.status !== 'pending');
  if (ready.status === 'invalid') throw new MsgError({ key: 'acmeOrderFailed', vars: { detail: ready.error ? describeProblem(ready.error) : 'invalid' } });
  const { key, pem } = newCertKey(r.keyType);
  r.note({ key: 'acmeFinalize', vars: { keyType: r.keyType } });
  let order = ready.status === 'ready' ? await client.finalize(ready, buildCsr(r.names, key)) : ready;
  if (order.status !== 'valid') order = await client.poll<AcmeOrder>(orderUrl, 'certificate', (o) => o.status === 'valid' || o.status === 'invalid');
  if (order.status !== 'valid' || !order.certificate) {
    throw new MsgError({ key: 'acmeOrderFailed', vars: { detail: order.error ? describeProblem(order.error) : order.status } });
  }
  const cert = await client.download(order.certificate);
  return { cert, key: pem, account: account.url, badNonces: client.badNonces };
}
