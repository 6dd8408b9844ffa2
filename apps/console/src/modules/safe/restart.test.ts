import { describe, expect, it } from 'vitest';
import { waitForRestart, type Probe } from './restart';

function clock() {
  let t = 0;
  return { now: () => t, sleep: async (ms: number) => void (t += ms) };
}

const seq = (...probes: Probe[]) => {
  let i = 0;
  return async () => probes[Math.min(i++, probes.length - 1)]!;
};

describe('waitForRestart', () => {
  it('is done when the daemon answers after being down', async () => {
    const c = clock();
    const probe = seq({ state: 'up', startTime: 1 }, { state: 'down' }, { state: 'down' }, { state: 'up' });
    await expect(waitForRestart({ probe, before: 1, ...c })).resolves.toBe(true);
    expect(c.now()).toBe(3000);
  });

  it('is done when another process answers without a gap being seen', async () => {
    const c = clock();
    const probe = seq({ state: 'up', startTime: 1 }, { state: 'up', startTime: 2 });
    await expect(waitForRestart({ probe, before: 1, ...c })).resolves.toBe(true);
  });

  it('keeps waiting while the old process answers, and gives up in time', async () => {
    const c = clock();
    await expect(waitForRestart({ probe: seq({ state: 'up', startTime: 1 }), before: 1, timeoutMs: 10_000, ...c })).resolves.toBe(false);
    expect(c.now()).toBe(10_000);
    const c2 = clock();
    await expect(waitForRestart({ probe: seq({ state: 'down' }), timeoutMs: 5000, ...c2 })).resolves.toBe(false);
  });
});
