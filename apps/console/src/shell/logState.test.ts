import { describe, expect, it } from 'vitest';
import { logDialogSize } from './LogDialog';
import { applyLogResponse, initialLogState, MAX_LINES } from './logState';

const e = (timestamp: number, log = `line ${timestamp}`) => ({ timestamp, log });

describe('program log state', () => {
  it('appends lines and remembers the newest timestamp for pre', () => {
    let s = applyLogResponse(initialLogState, { starttime: 100, logs: [e(1), e(2)] });
    expect(s).toEqual({ starttime: 100, pre: 2, lines: ['line 1', 'line 2'] });
    s = applyLogResponse(s, { starttime: 100, logs: [] });
    expect(s.pre).toBe(2);
    s = applyLogResponse(s, { starttime: 100, logs: [e(5)] });
    expect(s.lines).toEqual(['line 1', 'line 2', 'line 5']);
    expect(s.pre).toBe(5);
  });

  it('starts over when starttime changes (the daemon restarted)', () => {
    let s = applyLogResponse(initialLogState, { starttime: 100, logs: [e(1), e(900)] });
    s = applyLogResponse(s, { starttime: 200, logs: [e(3, 'fresh')] });
    expect(s).toEqual({ starttime: 200, pre: 3, lines: ['fresh'] });
    s = applyLogResponse(s, { starttime: 300, logs: [] });
    expect(s).toEqual({ starttime: 300, pre: 0, lines: [] });
  });

  it('keeps at most MAX_LINES lines', () => {
    const logs = Array.from({ length: MAX_LINES + 10 }, (_, i) => e(i + 1));
    const s = applyLogResponse(initialLogState, { starttime: 1, logs });
    expect(s.lines).toHaveLength(MAX_LINES);
    expect(s.lines[0]).toBe('line 11');
  });

  it('sizes the dialog per spec', () => {
    expect(logDialogSize(1920, 1080)).toEqual({ width: 1300, height: 730 });
    expect(logDialogSize(1000, 900)).toEqual({ width: 900, height: 550 });
    const small = logDialogSize(700, 800);
    expect(small.width).toBeGreaterThan(650);
    expect(small.height).toBeGreaterThan(740);
  });
});
