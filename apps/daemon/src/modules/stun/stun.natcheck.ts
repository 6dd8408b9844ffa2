/**
 * NAT behaviour discovery (RFC 5780 section 4): how the NAT maps (does the public port depend on
 * where we send?) and how it filters (who may send back through a mapping?), with a verdict a user
 * can act on.
 */
import { createSocket, type Socket } from 'node:dgram';
import { networkInterfaces } from 'node:os';
import type { Msg, NatBehaviour } from '@lucky/contracts';
import { MsgError, msgOf } from '../../lib/msgerror.js';
import { UdpStunClient, type BindingResult, type StunServer } from './stun.client.js';
import type { StunAddress } from './stun.message.js';

export interface NatBehaviourResult {
  publicAddr: string | null;
  mapping: NatBehaviour;
  filtering: NatBehaviour;
  steps: Msg[];
  verdict: Msg;
}

export const NAT_TEST_STEP_TIMEOUT_MS = 2000;

const BEHAVIOUR_KEY = {
  endpointIndependent: 'natEndpointIndependent',
  addressDependent: 'natAddressDependent',
  addressAndPortDependent: 'natAddressAndPortDependent',
  unknown: 'natUnknown',
} as const;

function behaviourMsg(b: NatBehaviour): Msg {
  return { key: BEHAVIOUR_KEY[b] };
}

const addrText = (a: StunAddress) => `${a.address}:${a.port}`;
const same = (a: StunAddress, b: StunAddress) => a.address === b.address && a.port === b.port;

interface Probe {
  client: UdpStunClient;
  socket: Socket;
  port: number;
}

async function openProbe(localHost: string | undefined): Promise<Probe> {
  const socket = createSocket('udp4');
  const client = new UdpStunClient((buf, port, address) => socket.send(buf, port, address));
  socket.on('message', (m, r) => client.offer(m, r));
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, localHost || undefined, () => {
      socket.off('error', reject);
      resolve();
    });
  });
  // A send error (unreachable host) arrives here; the transaction's deadline says what happened.
  socket.on('error', () => {});
  return { client, socket, port: socket.address().port };
}

function closeProbe(p: Probe): void {
  p.client.close();
  try {
    p.socket.close();
  } catch {
    // already closed
  }
}

function localIpv4s(localHost: string | undefined): Set<string> {
  if (localHost) return new Set([localHost]);
  const out = new Set<string>();
  for (const list of Object.values(networkInterfaces())) for (const i of list ?? []) if (i.family === 'IPv4') out.add(i.address);
  return out;
}

/**
 * A binding where silence is an answer (what a filter drops never arrives), but a refusal is not:
 * a server that answers CHANGE-REQUEST with an error says nothing about our NAT.
 */
async function tryBinding(p: Probe, server: StunServer, o: { timeoutMs: number; changeIp?: boolean; changePort?: boolean }): Promise<BindingResult | 'silent' | 'refused'> {
  return p.client.binding(server, o).catch((err: unknown) => (err instanceof MsgError && err.msg.key === 'stunTimeout' ? 'silent' : 'refused'));
}

/**
 * RFC 5780 4.3: the same local port toward the alternate address (test II), then toward the
 * alternate address and port (test III).
 */
async function mappingTest(p: Probe, first: BindingResult, primary: StunServer, other: StunAddress, timeoutMs: number): Promise<NatBehaviour> {
  const alt: StunServer = { address: other.address, port: primary.port, label: `${other.address}:${primary.port}` };
  const two = await tryBinding(p, alt, { timeoutMs });
  if (typeof two === 'string') return 'unknown';
  if (same(two.mapped, first.mapped)) return 'endpointIndependent';
  const altBoth: StunServer = { address: other.address, port: other.port, label: addrText(other) };
  const three = await tryBinding(p, altBoth, { timeoutMs });
  if (typeof three === 'string') return 'unknown';
  return same(three.mapped, two.mapped) ? 'addressDependent' : 'addressAndPortDependent';
}

/**
 * RFC 5780 4.4, on a fresh local port: the mapping tests have already sent to the alternate
 * address from theirs, which would open the very filter this test looks for.
 */
async function filteringTest(p: Probe, primary: StunServer, other: StunAddress, timeoutMs: number): Promise<NatBehaviour> {
  // The fresh port's own mapping, and proof that the server answers it at all.
  const base = await tryBinding(p, primary, { timeoutMs });
  if (typeof base === 'string') return 'unknown';
  const two = await tryBinding(p, primary, { timeoutMs, changeIp: true, changePort: true });
  if (two === 'refused') return 'unknown';
  if (two !== 'silent') {
    // A server that ignores CHANGE-REQUEST answers from where it was asked: that proves nothing.
    return same(two.from, other) ? 'endpointIndependent' : 'unknown';
  }
  const three = await tryBinding(p, primary, { timeoutMs, changePort: true });
  if (three === 'silent') return 'addressAndPortDependent';
  if (three === 'refused') return 'unknown';
  return three.from.address === primary.address && three.from.port === other.port ? 'addressDependent' : 'unknown';
}

function verdictOf(noNat: boolean, mapping: NatBehaviour, filtering: NatBehaviour, why: Msg | null): Msg {
  if (noNat) return { key: 'stunVerdictOpen' };
  if (mapping === 'addressDependent' || mapping === 'addressAndPortDependent') return { key: 'stunVerdictSymmetric' };
  if (mapping === 'endpointIndependent') {
    if (filtering === 'endpointIndependent') return { key: 'stunVerdictOpen' };
    if (filtering !== 'unknown') return { key: 'stunVerdictRestricted' };
    return { key: 'stunVerdictUnknown', vars: { detail: { key: 'stunTestFiltering', vars: { behaviour: behaviourMsg('unknown') } } } };
  }
  return { key: 'stunVerdictUnknown', vars: { detail: why ?? { key: 'stunTestMapping', vars: { behaviour: behaviourMsg('unknown') } } } };
}

/**
 * Runs the tests on sockets of its own. Each request waits at most `timeoutMs`; the mapping and the
 * filtering tests run side by side, so the whole takes at most about four times that.
 */
export async function natBehaviourTest(o: { server: StunServer; localHost?: string; timeoutMs?: number }): Promise<NatBehaviourResult> {
  const timeoutMs = o.timeoutMs ?? NAT_TEST_STEP_TIMEOUT_MS;
  const primary = o.server;
  const steps: Msg[] = [];
  const probe = await openProbe(o.localHost);
  let second: Probe | null = null;
  try {
    let first: BindingResult;
    try {
      first = await probe.client.binding(primary, { timeoutMs });
    } catch (err) {
      const why: Msg = { key: 'stunServerFailed', vars: { server: primary.label, detail: msgOf(err) } };
      steps.push(why);
      return { publicAddr: null, mapping: 'unknown', filtering: 'unknown', steps, verdict: { key: 'stunVerdictUnknown', vars: { detail: why } } };
    }
    const publicAddr = addrText(first.mapped);
    steps.push({ key: 'stunTestBinding', vars: { server: primary.label, addr: publicAddr } });
    const noNat = first.mapped.port === probe.port && localIpv4s(o.localHost).has(first.mapped.address);
    if (noNat) steps.push({ key: 'stunTestNoNat', vars: { addr: publicAddr } });

    const other = first.otherAddress;
    // An OTHER-ADDRESS on the primary IP (or none, or 0.0.0.0) cannot tell address behaviours apart.
    if (!other || other.address === primary.address || other.address === '0.0.0.0' || other.port === 0) {
      const why: Msg = { key: 'stunTestNoOther', vars: { server: primary.label } };
      steps.push(why);
      const mapping: NatBehaviour = noNat ? 'endpointIndependent' : 'unknown';
      return { publicAddr, mapping, filtering: 'unknown', steps, verdict: verdictOf(noNat, mapping, 'unknown', why) };
    }

    second = await openProbe(o.localHost);
    const [mapped, filtering] = await Promise.all([
      noNat ? Promise.resolve<NatBehaviour>('endpointIndependent') : mappingTest(probe, first, primary, other, timeoutMs),
      filteringTest(second, primary, other, timeoutMs),
    ]);
    steps.push({ key: 'stunTestMapping', vars: { behaviour: behaviourMsg(mapped) } });
    steps.push({ key: 'stunTestFiltering', vars: { behaviour: behaviourMsg(filtering) } });
    return { publicAddr, mapping: mapped, filtering, steps, verdict: verdictOf(noNat, mapped, filtering, null) };
  } finally {
    closeProbe(probe);
    if (second) closeProbe(second);
  }
}
