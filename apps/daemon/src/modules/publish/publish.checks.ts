/**
 * The links of a published service's card, each looked at on its own: the names at their
 * authoritative servers (never through a cache), the certificate, the web rule, the target, and
 * how the outside gets in: the router forwards (direct) or the STUN rule's mapping (STUN). Each
 * says what it found and, when broken, what to do.
 */
import { parseHostPort, type Msg, type PublishCheckId, type RuleStatus } from '@lucky/contracts';
import type { DdnsTaskRef } from '../../core/services/dnsProviders.js';
import type { PortMappingState } from '../../core/services/portMappings.js';
import type { StoredCertificate } from '../../core/services/certificates.js';
import type { StunAddress } from '../../core/services/stunAddresses.js';
import { findAuthority, type AuthorityOptions } from '../../lib/dns/authoritative.js';
import { portRecordText } from '../../lib/dns/svcrdata.js';
import { queryAddresses, queryRdata, TYPE } from '../../lib/dns/wire.js';
import type { PortRecord } from './publish.parts.js';
import { msgOf } from '../../lib/msgerror.js';

export interface Check {
  id: PublishCheckId;
  state: 'ok' | 'failed' | 'pending';
  msg: Msg;
  hint: Msg | null;
  checked: number;
}

const DAY = 86_400_000;
const check = (id: PublishCheckId, state: Check['state'], msg: Msg, hint: Msg | null = null): Check => ({ id, state, msg, hint, checked: Date.now() });

/** The servers to ask: an RFC 2136 task's own server (authoritative for its zone), else the zone's NS. */
async function authorities(name: string, task: DdnsTaskRef | undefined, lookup: AuthorityOptions | undefined): Promise<Array<{ host: string; port: number }>> {
  const own = task?.server ? parseHostPort(task.server, 53) : null;
  if (own) return [own];
  const found = await findAuthority(name, lookup);
  return found.servers.map((s) => s.addresses[0]!);
}

/** The names' A records, and the port records written for them (STUN mode), at the authoritative servers. */
export async function checkDns(names: readonly string[], ip: string, task: DdnsTaskRef | undefined, lookup?: AuthorityOptions, records: readonly PortRecord[] = []): Promise<Check> {
  const hint: Msg = { key: 'publishDnsHint', vars: { task: task?.name ?? '' } };
  if (!ip) return check('dns', 'pending', { key: 'publishDnsNoAddress' });
  const asked = new Set<string>();
  for (const name of names) {
    let servers: Array<{ host: string; port: number }>;
    try {
      servers = await authorities(name, task, lookup);
    } catch (err) {
      return check('dns', 'failed', { key: 'publishDnsFailed', vars: { name, detail: msgOf(err) } }, hint);
    }
    for (const server of servers) {
      const where = server.port === 53 ? server.host : `${server.host}:${server.port}`;
      asked.add(where);
      let got: string[];
      try {
        got = await queryAddresses(server, name, 'A', 3000);
      } catch (err) {
        return check('dns', 'failed', { key: 'publishDnsFailed', vars: { name, detail: msgOf(err) } }, hint);
      }
      if (got.length === 0) return check('dns', 'failed', { key: 'publishDnsNone', vars: { name, server: where } }, hint);
      if (!got.includes(ip)) return check('dns', 'failed', { key: 'publishDnsWrong', vars: { name, server: where, got: got.join(', '), ip } }, hint);
      for (const r of records.filter((x) => x.name === name || x.name.endsWith(`.${name}`))) {
        let values: string[];
        try {
          values = (await queryRdata(server, r.name, TYPE[r.type], 3000)).map((d) => portRecordText(r.type, d));
        } catch (err) {
          return check('dns', 'failed', { key: 'publishDnsFailed', vars: { name: r.name, detail: msgOf(err) } }, hint);
        }
        if (!values.includes(r.value)) {
          return check('dns', 'failed', { key: 'publishDnsPortWrong', vars: { name: r.name, type: r.type, server: where, got: values.join(', ') || '-', want: r.value } }, hint);
        }
      }
    }
  }
  const port = /port=(\d+)/.exec(records.find((r) => r.type === 'HTTPS')?.value ?? '')?.[1] ?? / (\d+) /.exec(records[0]?.value ?? '')?.[1];
  const vars = { names: names.join(', '), ip, servers: [...asked].join(', ') };
  return check('dns', 'ok', port ? { key: 'publishDnsOkPorts', vars: { ...vars, port } } : { key: 'publishDnsOk', vars });
}

export function checkCertificate(names: readonly string[], cert: StoredCertificate | undefined, problem: Msg | null, hint: Msg): Check {
  if (problem) return check('certificate', 'failed', { key: 'publishCertFailed', vars: { detail: problem } }, hint);
  if (!cert) return check('certificate', 'pending', { key: 'publishCertPending' });
  const missing = names.filter((n) => !cert.names.includes(n));
  if (missing.length) return check('certificate', 'pending', { key: 'publishCertMissing', vars: { names: missing.join(', ') } });
  const days = Math.floor((cert.notAfter - Date.now()) / DAY);
  return check('certificate', 'ok', { key: 'publishCertOk', vars: { date: new Date(cert.notAfter).toISOString().slice(0, 10), days } });
}

export function checkWeb(name: string, status: RuleStatus | undefined): Check {
  if (!status) return check('web', 'failed', { key: 'publishWebMissing' });
  if (status.state === 'running') return check('web', 'ok', { key: 'publishWebOk', vars: { name } });
  const detail: Msg = { key: 'rawText', vars: { text: status.message || status.state } };
  // Waiting for its certificate is the certificate's link, not a broken web rule.
  if (status.state === 'waiting') return check('web', 'ok', { key: 'publishWebOk', vars: { name } });
  return check('web', 'failed', { key: 'publishWebDown', vars: { name, detail } }, { key: 'publishWebHint', vars: { name } });
}

export function checkTarget(target: string, probe: { up: boolean; detail: string }): Check {
  return probe.up
    ? check('target', 'ok', { key: 'publishTargetOk', vars: { target, status: probe.detail } })
    : check('target', 'failed', { key: 'publishTargetDown', vars: { target, detail: probe.detail } }, { key: 'publishTargetHint', vars: { target } });
}

export function checkRouter(mapped: boolean, states: PortMappingState[], forwards: string, lan: string): Check {
  if (!mapped) return check('router', 'ok', { key: 'publishRouterManual', vars: { forwards, lan } });
  const failed = states.find((s) => s.state === 'failed');
  const hint: Msg = { key: 'publishRouterHint', vars: { forwards, lan } };
  if (failed) return check('router', 'failed', { key: 'publishRouterFailed', vars: { detail: failed.reason ?? { key: 'rawText', vars: { text: '' } } } }, hint);
  if (states.some((s) => s.state !== 'ok')) return check('router', 'pending', { key: 'publishRouterPending' });
  const kind = states[0]?.kind === 'natpmp' ? 'NAT-PMP' : 'UPnP';
  const ports = states.map((s) => s.externalPort).join(', ');
  return check('router', 'ok', { key: 'publishRouterOk', vars: { kind, ports, ip: states[0]?.externalAddress || '?' } });
}

/** STUN mode: the STUN rule runs, holds a public address, and the router lets it in when asked to. */
export function checkStun(name: string, now: StunAddress | null, status: RuleStatus | undefined, mapRouter: boolean): Check {
  const hint: Msg = { key: 'publishStunHint', vars: { name } };
  /** Red with what the STUN rule's status says. */
  const down = (text: string) => check('stun', 'failed', { key: 'publishStunDown', vars: { name, detail: { key: 'rawText', vars: { text } } } }, hint);
  if (!status) return check('stun', 'failed', { key: 'publishStunMissing' });
  if (status.state !== 'running' && status.state !== 'waiting') return down(status.message || status.state);
  if (!now) return status.message ? down(status.message) : check('stun', 'pending', { key: 'publishStunPending' });
  const vars = { name, addr: `${now.ip}:${now.port}`, local: now.localPort };
  const failed = now.mappings.find((m) => m.state === 'failed');
  if (failed) {
    return check('stun', 'failed', { key: 'publishStunMapFailed', vars: { detail: failed.reason ?? { key: 'rawText', vars: { text: '' } } } }, { key: 'publishStunMapHint', vars: { name, local: now.localPort } });
  }
  if (mapRouter && now.mappings.some((m) => m.state !== 'ok')) return check('stun', 'pending', { key: 'publishStunPending' });
  if (status.state === 'running' && status.message) return down(status.message);
  return check('stun', 'ok', { key: mapRouter && now.mappings.length ? 'publishStunOkMapped' : 'publishStunOk', vars });
}
