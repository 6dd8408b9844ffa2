/**
 * RFC 2136 dynamic update signed with TSIG. The record is read from the same server first (a
 * plain query), and replaced only when it differs. Use `sub:zone` when the zone is deeper than two labels.
 * TXT records (ACME DNS-01) are set the same way; removing a TXT value deletes only that record
 * (RFC 2136 2.5.4), other texts of the name stay. SRV and HTTPS (a service's port) replace the name's
 * set of their type with the one value.
 */
import { parseHostPort } from '@lucky/contracts';
import { portRecordRdata, portRecordText } from '../svcrdata.js';
import { buildTextRemoval, buildUpdate, exchange, parseMessage, queryAddresses, queryRdata, queryTexts, RCODES, signTsig, TYPE, verifyTsigAnswer } from '../wire.js';
import { MsgError, msgOf } from '../../msgerror.js';
import { setHolds, type DnsProvider, type ProviderContext } from './types.js';

function serverOf(ctx: ProviderContext) {
  const server = parseHostPort(ctx.creds.server, 53);
  if (!server) throw new MsgError({ key: 'dnsBadServer', vars: { server: ctx.creds.server } });
  return server;
}

/** Sends one signed UPDATE; throws why the server refused. */
async function update(ctx: ProviderContext, server: { host: string; port: number }, msg: Buffer): Promise<void> {
  const key = { name: ctx.creds.id, algorithm: ctx.creds.algorithm, secret: ctx.creds.secret };
  const { signed, mac } = signTsig(msg, key, Math.floor(ctx.now().getTime() / 1000));
  const raw = await exchange(server, signed, ctx.timeoutMs);
  const answer = parseMessage(raw);
  if (answer.rcode !== 0) {
    const rcode = RCODES[answer.rcode] ?? answer.rcode;
    try {
      verifyTsigAnswer(raw, answer, key, mac);
    } catch (err) {
      // BADSIG, BADKEY...: why the server refused, when its answer says so.
      throw new MsgError({ key: 'dnsUpdateRefusedWhy', vars: { rcode, reason: msgOf(err) } });
    }
    throw new MsgError({ key: 'dnsUpdateRefused', vars: { rcode } });
  }
  verifyTsigAnswer(raw, answer, key, mac);
}

export const rfc2136: DnsProvider = {
  name: 'rfc2136',
  base: '',
  async set(ctx, want) {
    const server = serverOf(ctx);
    const d = want.domain;
    if (want.type === 'TXT') {
      const current = await queryTexts(server, d.full, ctx.timeoutMs);
      if (setHolds(current, want)) return 'same';
      await update(ctx, server, buildUpdate({ zone: d.root, name: d.full, type: TYPE.TXT, ttl: want.ttl, ips: [], texts: [want.value] }));
      return current.length ? 'updated' : 'created';
    }
    if (want.type === 'SRV' || want.type === 'HTTPS') {
      const rdata = portRecordRdata(want.type, want.value);
      const current = await queryRdata(server, d.full, TYPE[want.type], ctx.timeoutMs);
      if (current.length === 1 && current[0]!.equals(rdata)) return 'same';
      await update(ctx, server, buildUpdate({ zone: d.root, name: d.full, type: TYPE[want.type], ttl: want.ttl, ips: [], rdata: [rdata] }));
      return current.length ? 'updated' : 'created';
    }
    const type = want.type;
    const current = await queryAddresses(server, d.full, type, ctx.timeoutMs);
    if (current.length === 1 && current[0]!.toLowerCase() === want.value.toLowerCase()) return 'same';
    await update(ctx, server, buildUpdate({ zone: d.root, name: d.full, type: TYPE[type], ttl: want.ttl, ips: [want.value] }));
    return current.length ? 'updated' : 'created';
  },
  async list(ctx, want) {
    const server = serverOf(ctx);
    const name = want.domain.full;
    const type = want.type;
    if (type === 'SRV' || type === 'HTTPS') return (await queryRdata(server, name, TYPE[type], ctx.timeoutMs)).map((r) => portRecordText(type, r));
    return type === 'TXT' ? queryTexts(server, name, ctx.timeoutMs) : queryAddresses(server, name, type, ctx.timeoutMs);
  },
  async remove(ctx, want) {
    const server = serverOf(ctx);
    const d = want.domain;
    if (want.type === 'TXT' && want.value !== undefined) {
      await update(ctx, server, buildTextRemoval(d.root, d.full, [want.value]));
      return;
    }
    await update(ctx, server, buildUpdate({ zone: d.root, name: d.full, type: TYPE[want.type], ttl: 0, ips: [], ...(want.type === 'TXT' ? { texts: [] } : {}) }));
  },
};
