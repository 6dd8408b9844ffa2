/**
 * RFC 2136 dynamic update signed with TSIG. The record is read from the same server first (a
 * plain query), and replaced only when it differs. Use `sub:zone` when the zone is deeper than two labels.
 */
import { parseHostPort } from '@lucky/contracts';
import { buildUpdate, exchange, parseMessage, queryAddresses, RCODES, signTsig, TYPE, verifyTsigAnswer } from '../wire.js';
import { MsgError, msgOf } from '../../msgerror.js';
import { addressType, type DnsProvider } from './types.js';

export const rfc2136: DnsProvider = {
  name: 'rfc2136',
  base: '',
  canRead: true,
  async set(ctx, want) {
    const server = parseHostPort(ctx.creds.server, 53);
    if (!server) throw new MsgError({ key: 'dnsBadServer', vars: { server: ctx.creds.server } });
    const type = addressType(want, 'RFC 2136');
    const d = want.domain;
    const current = await queryAddresses(server, d.full, type, ctx.timeoutMs);
    if (current.length === 1 && current[0]!.toLowerCase() === want.value.toLowerCase()) return 'same';
    const key = { name: ctx.creds.id, algorithm: ctx.creds.algorithm, secret: ctx.creds.secret };
    const msg = buildUpdate({ zone: d.root, name: d.full, type: TYPE[type], ttl: want.ttl, ips: [want.value] });
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
    return current.length ? 'updated' : 'created';
  },
};
