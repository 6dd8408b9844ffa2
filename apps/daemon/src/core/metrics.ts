/**
 * Metrics in the Prometheus text exposition format (0.0.4), made afresh on every scrape from the
 * figures the engines keep anyway (docs/METRICS.md). Nothing is counted per request for metrics:
 * a scrape reads counters and writes them out, so a daemon nobody scrapes pays nothing. Our own
 * rather than prom-client, whose registry keeps series alive between scrapes and is made for
 * counting in the data path, which is what we must not do.
 *
 * Label values come from configuration (module and rule keys, names, backend URLs), never from
 * traffic: the series stay as many as the rules.
 */

export type Labels = Readonly<Record<string, string>>;
type Kind = 'counter' | 'gauge' | 'histogram';

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

interface Family {
  kind: Kind;
  help: string;
  lines: string[];
  /** Label sets already written: a series twice is an invalid exposition. */
  seen: Set<string>;
}

/** A histogram as the figures keep it: counts per bucket (not cumulative), one more past the last bound, and the sum. */
export interface HistogramFigures {
  bounds: readonly number[];
  counts: readonly number[];
  sum: number;
}

export interface Series {
  set(labels: Labels, value: number): void;
}

export interface HistogramSeries {
  observe(labels: Labels, h: HistogramFigures): void;
}

function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

const escapeLabel = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const escapeHelp = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

function labelText(labels: Labels): string {
  const keys = Object.keys(labels);
  if (keys.length === 0) return '';
  for (const k of keys) if (!LABEL.test(k) || k.startsWith('__')) throw new Error(`bad label name ${k}`);
  return `{${keys.map((k) => `${k}="${escapeLabel(labels[k]!)}"`).join(',')}}`;
}

/** One scrape's metrics: families declared with their type and help, samples added, then rendered. */
export class Metrics {
  private families = new Map<string, Family>();

  private family(name: string, kind: Kind, help: string): Family {
    if (!NAME.test(name)) throw new Error(`bad metric name ${name}`);
    let f = this.families.get(name);
    if (!f) {
      f = { kind, help, lines: [], seen: new Set() };
      this.families.set(name, f);
    } else if (f.kind !== kind) throw new Error(`metric ${name} is a ${f.kind}, not a ${kind}`);
    return f;
  }

  private sample(f: Family, name: string, labels: Labels, value: number): void {
    f.lines.push(`${name}${labelText(labels)} ${formatValue(value)}`);
  }

  private once(f: Family, name: string, labels: Labels): boolean {
    const id = labelText(labels);
    if (f.seen.has(id)) return false;
    f.seen.add(id);
    return true;
  }

  /** A value that only goes up (it starts again from 0 when its rule restarts; rate() takes that). Named `…_total`. */
  counter(name: string, help: string): Series {
    if (!name.endsWith('_total')) throw new Error(`counter ${name} must end in _total`);
    const f = this.family(name, 'counter', help);
    return { set: (labels, value) => this.once(f, name, labels) && this.sample(f, name, labels, Math.max(0, value)) };
  }

  gauge(name: string, help: string): Series {
    const f = this.family(name, 'gauge', help);
    return { set: (labels, value) => this.once(f, name, labels) && this.sample(f, name, labels, value) };
  }

  histogram(name: string, help: string): HistogramSeries {
    const f = this.family(name, 'histogram', help);
    return {
      observe: (labels, h) => {
        if (!this.once(f, name, labels)) return;
        if ('le' in labels) throw new Error('a histogram label may not be called le');
        let cumulative = 0;
        h.bounds.forEach((le, i) => {
          cumulative += h.counts[i] ?? 0;
          this.sample(f, `${name}_bucket`, { ...labels, le: formatValue(le) }, cumulative);
        });
        cumulative += h.counts[h.bounds.length] ?? 0;
        this.sample(f, `${name}_bucket`, { ...labels, le: '+Inf' }, cumulative);
        this.sample(f, `${name}_sum`, labels, h.sum);
        this.sample(f, `${name}_count`, labels, cumulative);
      },
    };
  }

  /** The exposition: each family's help, type and samples together, families with no sample left out. */
  render(): string {
    const out: string[] = [];
    for (const [name, f] of this.families) {
      if (f.lines.length === 0) continue;
      out.push(`# HELP ${name} ${escapeHelp(f.help)}`, `# TYPE ${name} ${f.kind}`, ...f.lines);
    }
    return out.length ? out.join('\n') + '\n' : '';
  }
}
