/**
 * DNS-01 propagation: after the TXT record is written and before the CA is asked to look, the
 * zone's authoritative servers are asked directly (no recursion) until every one answers the value,
 * or the rule's `dnsCheckTimeout` passes (the order then fails naming the servers without it). The
 * servers: the rule's `dnsServers`, else the RFC 2136 task's own server, else the NS of the zone,
 * found with the system's resolver; when none are found that is a line of the log and the order goes on.
 */
import { parseHostPort, type AcmeRule, type Msg } from '@lucky/contracts';
import { findAuthority, type AuthorityOptions, type NameServer } from '../../lib/dns/authoritative.js';
import { queryTexts } from '../../lib/dns/wire.js';
import { MsgError, msgOf } from '../../lib/msgerror.js';

export interface PropagationRequest {
  rule: Pick<AcmeRule, 'dnsServers' | 'dnsCheckTimeout'>;
  /** `_acme-challenge.<name>` */
  record: string;
  value: string;
  /** The RFC 2136 task's server (host:port), authoritative for its zone. */
  taskServer?: string;
  /** How the zone's servers are found (tests point it at their own DNS). */
  lookup?: AuthorityOptions;
  /** Between rounds (default 3 s). */
  intervalMs?: number;
  note(line: Msg): void;
  stopped(): boolean;
}

const QUERY_TIMEOUT_MS = 2000;

const given = (line: string): NameServer | null => {
  const hp = parseHostPort(line, 53);
  return hp ? { name: line, addresses: [hp] } : null;
};
const names = (servers: readonly NameServer[]) => servers.map((s) => s.name).join(', ');

/** The servers to ask; null (noted) when none could be found. */
async function serversFor(r: PropagationRequest): Promise<NameServer[] | null> {
  const listed = r.rule.dnsServers.length ? r.rule.dnsServers : r.taskServer ? [r.taskServer] : [];
  if (listed.length) return listed.map(given).filter((s): s is NameServer => s !== null);
  try {
    const found = await findAuthority(r.record, r.lookup);
    r.note({ key: 'acmeDnsCheckFound', vars: { zone: found.zone, servers: names(found.servers) } });
    return found.servers;
  } catch (err) {
    r.note({ key: 'acmeDnsCheckNoServers', vars: { record: r.record, detail: msgOf(err) } });
    return null;
  }
}

/** Whether any address of the server answers the value itself. */
async function answers(server: NameServer, record: string, value: string): Promise<boolean> {
  const seen = await Promise.all(server.addresses.map((a) => queryTexts(a, record, QUERY_TIMEOUT_MS, false).then((t) => t.includes(value), () => false)));
  return seen.some(Boolean);
}

/** Resolves once every server answers the value (or none could be found); throws at the timeout. */
export async function awaitPropagation(r: PropagationRequest): Promise<void> {
  const servers = await serversFor(r);
  if (!servers?.length) return;
  const start = Date.now();
  const timeoutMs = r.rule.dnsCheckTimeout * 1000;
  const seen = new Set<NameServer>();
  let lagging = '';
  r.note({ key: 'acmeDnsCheckWait', vars: { servers: names(servers), record: r.record } });
  for (;;) {
    const ask = servers.filter((s) => !seen.has(s));
    const results = await Promise.all(ask.map((s) => answers(s, r.record, r.value)));
    ask.forEach((s, i) => results[i] && seen.add(s));
    const left = servers.filter((s) => !seen.has(s));
    const seconds = Math.round((Date.now() - start) / 1000);
    if (left.length === 0) {
      r.note({ key: 'acmeDnsCheckSeen', vars: { servers: names(servers), record: r.record, seconds } });
      return;
    }
    if (r.stopped()) throw new MsgError({ key: 'ruleSwitchedOff' });
    const elapsed = Date.now() - start;
    if (elapsed >= timeoutMs) throw new MsgError({ key: 'acmeDnsCheckTimeout', vars: { seconds, servers: names(left), record: r.record } });
    // A line whenever the servers still without the record change.
    if (names(left) !== lagging) {
      lagging = names(left);
      r.note({ key: 'acmeDnsCheckLag', vars: { servers: lagging, record: r.record } });
    }
    await new Promise((res) => setTimeout(res, Math.min(r.intervalMs ?? 3000, timeoutMs - elapsed)));
  }
}
