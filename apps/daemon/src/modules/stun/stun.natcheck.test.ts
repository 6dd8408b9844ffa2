/**
 * The RFC 5780 test through a real NAT: the lab's router masquerades the LAN with nftables. Linux
 * masquerade keeps one public port per local port (endpoint-independent mapping) and lets in only
 * what answers a connection it has seen (address and port dependent filtering); with `random` the
 * public port changes with the destination (a symmetric NAT).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNatLab, type NatLab } from '../../test/natlab.js';
import { resolveStunServer } from './stun.client.js';
import { natBehaviourTest } from './stun.natcheck.js';

let lab: NatLab;
let stun: { server: string; stop(): Promise<void> };

beforeAll(async () => {
  lab = await createNatLab('nc');
  stun = await lab.startStun();
});
afterAll(async () => {
  await stun?.stop();
  await lab?.remove();
});

describe('natBehaviourTest behind the lab router', () => {
  it('masquerade: endpoint-independent mapping, address and port dependent filtering → restricted', async () => {
    const server = await resolveStunServer(stun.server);
    const t0 = Date.now();
    const r = await natBehaviourTest({ server, localHost: lab.lanAddr, timeoutMs: 800 });
    expect(Date.now() - t0).toBeLessThan(4 * 800 + 1000);
    expect(r.publicAddr).toMatch(new RegExp(`^${lab.routerWanAddr().replace(/\./g, '\\.')}:\\d+$`));
    expect(r.steps.map((s) => s.key)).not.toContain('stunTestNoNat');
    expect(r.mapping).toBe('endpointIndependent');
    expect(r.filtering).toBe('addressAndPortDependent');
    expect(r.verdict).toEqual({ key: 'stunVerdictRestricted' });
  });

  it('masquerade with random ports: dependent mapping → symmetric', async () => {
    await lab.setMasquerade('random,fully-random');
    try {
      const server = await resolveStunServer(stun.server);
      const r = await natBehaviourTest({ server, localHost: lab.lanAddr, timeoutMs: 800 });
      expect(r.publicAddr).not.toBeNull();
      expect(['addressDependent', 'addressAndPortDependent']).toContain(r.mapping);
      expect(r.verdict).toEqual({ key: 'stunVerdictSymmetric' });
    } finally {
      await lab.setMasquerade('');
    }
  });
});
