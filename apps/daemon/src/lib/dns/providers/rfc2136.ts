/**
 * RFC 2136 dynamic update signed with TSIG. The record is read from the same server first (a
 * plain query), and replaced only when it differs. Use `sub:zone` when the zone is deeper than two labels.
 */
import { parseHostPort } from '@lucky/contracts';
import { buildUpdate, exchange, parseMessage, queryAddresses, RCODES, signTsig, TYPE, verifyTsigAnswer } from '../dnswire.js';
import { ProviderError, type DnsProvider } from './types.js';

export const rfc2136: DnsProvider = {
  name: 'rfc2136',
  base: '',
  canRead: true,
  async sync(ctx, want) {
    const server = parseHostPort(ctx.creds.server, 53);
    if (!server) throw new ProviderError(`RFC 2136: bad server address ${ctx.creds.server}`);
    const d = want.domain;
    const current = await queryAddresses(server, d.full, want.type, ctx.timeoutMs);
    if (current.length === 1 && current[0]!.toLowerCase() === want.ip.toLowerCase()) return 'same';
    const key = { name: ctx.creds.id, algorithm: ctx.creds.algorithm, secret: ctx.creds.secret };
    const msg = buildUpdate({ zone: d.root, name: d.full, type: TYPE[want.type], ttl: want.ttl, ips: [want.ip] });
    const { signed, mac } = signTsig(msg, key, Math.floor(ctx.now().getTime() / 1000));
    const raw = await exchange(server, signed, ctx.timeoutMs);
    const answer = parseMessage(raw);
    if (answer.rcode !== 0) {
      let tsigErr = '';
      try {
        verifyTsigAnswer(raw, answer, key, mac);
      } catch (err) {
        tsigErr = ` (${(err as Error).message})`;
      }
      throw new ProviderError(`RFC 2136 update refused: ${RCODES[answer.rcode] ?? answer.rcode}${tsigErr}`);
    }
    verifyTsigAnswer(raw, answer, key, mac);
    return current.length ? 'updated' : 'created';
  },
};
