/**
 * The web module's series (docs/METRICS.md), from the figures either engine keeps per rule (the
 * native edge's counters, or the Node path's summed over its threads): requests by status class,
 * bytes, connections, the request duration histogram and each proxy backend's health.
 */
import { WEB_DURATION_BUCKETS, type WebRule } from '@lucky/contracts';
import type { Metrics } from '../../core/metrics.js';
import type { RuleFigures } from '../../core/module.js';
import type { WebRunFigures } from './web.engine.js';

/** "0" (closed before an answer) is "none"; 101 is "1xx"... */
function classOf(code: string): string {
  const n = Number(code);
  return n >= 100 && n < 600 ? `${Math.floor(n / 100)}xx` : 'none';
}

export function webMetrics(rules: RuleFigures<WebRule, WebRunFigures>[], m: Metrics): void {
  const requests = m.counter('lucky_web_requests_total', 'Requests answered by a web rule, by status class (none: closed before an answer).');
  const byEngine = m.counter('lucky_web_engine_requests_total', 'Requests of a web rule by who answered them on the native data plane: the edge itself (native) or the rule\'s Node server (node).');
  const bytesIn = m.counter('lucky_web_received_bytes_total', 'Bytes received from clients by a web rule.');
  const bytesOut = m.counter('lucky_web_sent_bytes_total', 'Bytes sent to clients by a web rule.');
  const open = m.gauge('lucky_web_connections', 'Client connections open now on a web rule.');
  const duration = m.histogram('lucky_web_request_duration_seconds', 'Time from a request\'s head to the end of its answer, in seconds.');
  const upstream = m.gauge('lucky_web_upstream_up', 'Whether a proxy backend of a web rule is in use (1) or marked down by a health check or after errors (0).');
  for (const { key, figures } of rules) {
    if (!figures) continue;
    const t = figures.traffic;
    const rule = { rule: key };
    const classes = new Map<string, number>();
    for (const [code, n] of Object.entries(t.codes)) classes.set(classOf(code), (classes.get(classOf(code)) ?? 0) + n);
    // Every class present from the start: a rate over a series that appears late misses its first requests.
    for (const c of ['1xx', '2xx', '3xx', '4xx', '5xx', 'none']) requests.set({ ...rule, code: c }, classes.get(c) ?? 0);
    if (t.engine) {
      byEngine.set({ ...rule, engine: 'native' }, t.engine.native);
      byEngine.set({ ...rule, engine: 'node' }, t.engine.node);
    }
    bytesIn.set(rule, t.bytesIn);
    bytesOut.set(rule, t.bytesOut);
    open.set(rule, t.connections);
    if (t.duration) duration.observe(rule, { bounds: WEB_DURATION_BUCKETS, counts: t.duration.counts, sum: t.duration.seconds });
    for (const b of figures.backends) upstream.set({ ...rule, site: b.site, backend: b.url }, b.up ? 1 : 0);
  }
}
