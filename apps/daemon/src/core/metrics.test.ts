/** The exposition's own rules: escaping, cumulative buckets, one family together, no series twice. */
import { describe, expect, it } from 'vitest';
import { Metrics } from './metrics.js';

describe('Metrics exposition', () => {
  it('writes help, type and samples of a family together, escaping label values and help', () => {
    const m = new Metrics();
    const g = m.gauge('lucky_x', 'A gauge\\with a\nnewline.');
    const c = m.counter('lucky_y_total', 'A counter.');
    g.set({ name: 'a "quoted" \\ name\nnext' }, 1.5);
    c.set({ rule: 'r1' }, 3);
    g.set({ name: 'b' }, -Infinity);
    // The same series again is left out: Prometheus refuses an exposition that has one twice.
    g.set({ name: 'b' }, 7);
    m.gauge('lucky_empty', 'No samples: left out.');
    expect(m.render()).toBe(
      [
        '# HELP lucky_x A gauge\\\\with a\\nnewline.',
        '# TYPE lucky_x gauge',
        'lucky_x{name="a \\"quoted\\" \\\\ name\\nnext"} 1.5',
        'lucky_x{name="b"} -Inf',
        '# HELP lucky_y_total A counter.',
        '# TYPE lucky_y_total counter',
        'lucky_y_total{rule="r1"} 3',
        '',
      ].join('\n'),
    );
  });

  it('makes a histogram\'s buckets cumulative from per-bucket counts, with +Inf, sum and count', () => {
    const m = new Metrics();
    m.histogram('lucky_d_seconds', 'Durations.').observe({ rule: 'k' }, { bounds: [0.1, 1], counts: [2, 3, 4], sum: 12.5 });
    expect(m.render().split('\n').slice(2, -1)).toEqual([
      'lucky_d_seconds_bucket{rule="k",le="0.1"} 2',
      'lucky_d_seconds_bucket{rule="k",le="1"} 5',
      'lucky_d_seconds_bucket{rule="k",le="+Inf"} 9',
      'lucky_d_seconds_sum{rule="k"} 12.5',
      'lucky_d_seconds_count{rule="k"} 9',
    ]);
  });

  it('refuses bad names, a counter without _total and one name with two types', () => {
    const m = new Metrics();
    expect(() => m.gauge('lucky-bad', 'x')).toThrow(/bad metric name/);
    expect(() => m.counter('lucky_requests', 'x')).toThrow(/_total/);
    m.gauge('lucky_z', 'x');
    expect(() => m.histogram('lucky_z', 'x')).toThrow(/is a gauge/);
    expect(() => m.gauge('lucky_w', 'x').set({ 'bad-label': 'v' }, 1)).toThrow(/bad label name/);
  });
});
