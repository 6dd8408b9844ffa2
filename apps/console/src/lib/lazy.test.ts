import { afterEach, describe, expect, it, vi } from 'vitest';
import { importWithRetry } from './lazy';

/** A load that fails `n` times, then gives the module. */
function failing(n: number) {
  let calls = 0;
  const load = vi.fn(async () => {
    calls++;
    if (calls <= n) throw new Error(`chunk failed (${calls})`);
    return { default: 'module' };
  });
  return load;
}

describe('importWithRetry', () => {
  afterEach(() => sessionStorage.clear());

  it('retries a failed chunk and returns it once it loads', async () => {
    const reload = vi.fn();
    const load = failing(2);
    await expect(importWithRetry(load, 3, 1, { pageAnswers: async () => true, reload })).resolves.toEqual({ default: 'module' });
    expect(load).toHaveBeenCalledTimes(3);
    expect(reload).not.toHaveBeenCalled();
  });

  it('reloads once when the retries are spent and the page answers (a new build), then gives up', async () => {
    const reload = vi.fn();
    const pending = importWithRetry(failing(100), 2, 1, { pageAnswers: async () => true, reload });
    await vi.waitFor(() => expect(reload).toHaveBeenCalledTimes(1));
    expect(sessionStorage.getItem('lucky-chunk-reload')).toBe('1');
    void pending;
    // After that reload the flag is set: the next failure gives up instead of reloading again.
    const reload2 = vi.fn();
    await expect(importWithRetry(failing(100), 1, 1, { pageAnswers: async () => true, reload: reload2 })).rejects.toThrow('chunk failed');
    expect(reload2).not.toHaveBeenCalled();
  });

  it('does not reload while the daemon is down: keeps trying until it is back', async () => {
    const reload = vi.fn();
    let up = false;
    const pageAnswers = vi.fn(async () => up);
    // The chunk fails exactly as long as the daemon is down.
    const load = vi.fn(async () => {
      if (!up) throw new Error('chunk failed');
      return { default: 'module' };
    });
    const result = importWithRetry(load, 2, 1, { pageAnswers, reload });
    await vi.waitFor(() => expect(pageAnswers.mock.calls.length).toBeGreaterThanOrEqual(5));
    expect(reload).not.toHaveBeenCalled();
    const tries = load.mock.calls.length;
    expect(tries).toBeGreaterThan(2 + 1);
    up = true; // the daemon is back with the same build: the chunk loads, no reload
    await expect(result).resolves.toEqual({ default: 'module' });
    expect(reload).not.toHaveBeenCalled();
    expect(load.mock.calls.length).toBeGreaterThan(tries);
  });
});
