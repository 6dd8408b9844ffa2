import { describe, expect, it } from 'vitest';
import { appendLogs } from './ruleQueries';

describe('rule log lines', () => {
  it('appends only lines newer than those shown, keeping the last N', () => {
    const a = [{ timestamp: 1, log: 'a' }, { timestamp: 2, log: 'b' }];
    expect(appendLogs(a, [{ timestamp: 2, log: 'b' }, { timestamp: 3, log: 'c' }]).map((l) => l.log)).toEqual(['a', 'b', 'c']);
    expect(appendLogs(a, [])).toBe(a);
    expect(appendLogs(a, [{ timestamp: 5, log: 'e' }], 2).map((l) => l.log)).toEqual(['b', 'e']);
  });
});
