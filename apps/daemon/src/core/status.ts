/** Process and system figures for /api/status; CPU and event-loop delay are measured between calls. */
import { cpus, freemem, hostname, loadavg, platform, arch, release, totalmem, uptime } from 'node:os';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { Status } from '@lucky/contracts';

interface Sample {
  at: number;
  cpu: NodeJS.CpuUsage;
  sysBusy: number;
  sysTotal: number;
}

function systemTimes(): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const c of cpus()) {
    const t = c.times;
    const all = t.user + t.nice + t.sys + t.idle + t.irq;
    total += all;
    busy += all - t.idle;
  }
  return { busy, total };
}

const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

/** How often the event-loop delay is sampled (ms). */
const DELAY_RESOLUTION_MS = 20;

/**
 * The event-loop delay in ms from Node's histogram. Node records the whole time between two of its
 * samples, its own interval included (an idle loop reads ~20 ms); the delay is what is left after
 * the interval. Checked by the histogram's minimum, in case a Node version records the delay alone.
 */
export function eventLoopDelayOf(h: Pick<IntervalHistogram, 'min' | 'mean' | 'max' | 'percentile'>, resolutionMs = DELAY_RESOLUTION_MS) {
  const interval = h.min >= resolutionMs * 0.5e6 ? resolutionMs : 0;
  const ms = (ns: number) => (Number.isFinite(ns) ? round(Math.max(0, ns / 1e6 - interval)) : 0);
  return { mean: ms(h.mean), p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max) };
}

export class StatusSampler {
  private histogram: IntervalHistogram;
  private last: Sample;
  private lastCpuPercent = 0;
  private lastSysPercent = 0;

  constructor(
    private startTime: number,
    private counts: () => { admin: number; modules: Record<string, number>; sessions: number },
  ) {
    this.histogram = monitorEventLoopDelay({ resolution: DELAY_RESOLUTION_MS });
    this.histogram.enable();
    const s = systemTimes();
    this.last = { at: performance.now(), cpu: process.cpuUsage(), sysBusy: s.busy, sysTotal: s.total };
  }

  read(): Status {
    const now = performance.now();
    const cpu = process.cpuUsage();
    const sys = systemTimes();
    const elapsedMs = now - this.last.at;
    // Calls closer than half a second apart reuse the previous window instead of reporting noise.
    if (elapsedMs >= 500) {
      const usedMicros = cpu.user - this.last.cpu.user + (cpu.system - this.last.cpu.system);
      this.lastCpuPercent = round((usedMicros / 1000 / elapsedMs) * 100);
      const dTotal = sys.total - this.last.sysTotal;
      this.lastSysPercent = dTotal > 0 ? round(((sys.busy - this.last.sysBusy) / dTotal) * 100) : 0;
      this.last = { at: now, cpu, sysBusy: sys.busy, sysTotal: sys.total };
    }
    const h = this.histogram;
    const eventLoopDelay = eventLoopDelayOf(h);
    if (elapsedMs >= 500) h.reset();
    const c = this.counts();
    const mem = process.memoryUsage();
    const cpuList = cpus();
    return {
      time: Date.now(),
      process: {
        pid: process.pid,
        uptime: round(process.uptime(), 1),
        startTime: this.startTime,
        memory: {
          rss: mem.rss,
          heapUsed: mem.heapUsed,
          heapTotal: mem.heapTotal,
          external: mem.external,
          arrayBuffers: mem.arrayBuffers,
        },
        cpuPercent: this.lastCpuPercent,
        cpuUserSeconds: round(cpu.user / 1e6),
        cpuSystemSeconds: round(cpu.system / 1e6),
        eventLoopDelay,
        activeHandles: (process as unknown as { getActiveResourcesInfo?: () => string[] }).getActiveResourcesInfo?.().length ?? 0,
      },
      system: {
        hostname: hostname(),
        platform: platform(),
        arch: arch(),
        release: release(),
        uptime: round(uptime(), 0),
        loadavg: loadavg().map((n) => round(n)),
        cpus: cpuList.length,
        cpuModel: cpuList[0]?.model ?? '',
        cpuPercent: this.lastSysPercent,
        memTotal: totalmem(),
        memFree: freemem(),
      },
      connections: { admin: c.admin, modules: c.modules },
      sessions: c.sessions,
      runtime: { node: process.versions.node, v8: process.versions.v8 },
    };
  }

  close(): void {
    this.histogram.disable();
  }
}
