import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BACKEND_ERROR_MS, dismissNotice, getNotices, pushNotice } from './notices';

describe('notices', () => {
  // The list is the module's own, shared with whatever ran before in this worker: start from none.
  const clear = () => getNotices().forEach((n) => dismissNotice(n.id));
  beforeEach(() => {
    clear();
    vi.useFakeTimers();
  });
  afterEach(() => {
    clear();
    vi.useRealTimers();
  });

  it('backend error messages disappear after two minutes', () => {
    expect(BACKEND_ERROR_MS).toBe(120_000);
    pushNotice('port in use');
    vi.advanceTimersByTime(119_000);
    expect(getNotices().map((n) => n.message)).toEqual(['port in use']);
    vi.advanceTimersByTime(1_000);
    expect(getNotices()).toEqual([]);
  });

  it('shows the same message once and can be closed early', () => {
    const a = pushNotice('x');
    pushNotice('x');
    expect(getNotices()).toHaveLength(1);
    dismissNotice(getNotices()[0]!.id);
    dismissNotice(a);
    expect(getNotices()).toEqual([]);
  });
});
