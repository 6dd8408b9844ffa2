/**
 * The web engine the module uses: served on the main thread or by serving threads, as the module
 * setting says, and switched when the setting changes. A switch stops every rule on the old engine
 * and starts it on the new one (open connections close; nothing saved changes).
 */
import type { WebRule } from '@lucky/contracts';
import type { WebEngineOptions } from './web.engine.js';
import type { Firewall } from './web.firewall.js';
import { createWebEngine, webThreadCount, WebThreads, type WebRuleEngine } from './web.threads.js';

export class WebServing implements WebRuleEngine {
  private inner: WebRuleEngine;
  private threads: number;
  /** What runs now, to start again on the next engine. */
  private running = new Map<string, WebRule>();
  private inFlight = new Set<Promise<void>>();
  private switching: Promise<void> | null = null;

  constructor(
    private opts: WebEngineOptions & { firewall: Firewall },
    setting: number,
  ) {
    this.threads = webThreadCount(setting);
    this.inner = createWebEngine({ ...opts, threads: this.threads });
  }

  /** Serving threads in use (1 = the main thread). */
  get threadCount(): number {
    return this.inner instanceof WebThreads ? this.threads : 1;
  }

  private async track(job: () => Promise<void>): Promise<void> {
    while (this.switching) await this.switching;
    const p = job();
    this.inFlight.add(p);
    try {
      await p;
    } finally {
      this.inFlight.delete(p);
    }
  }

  start(key: string, rule: WebRule): Promise<void> {
    return this.track(() => {
      this.running.set(key, rule);
      return this.inner.start(key, rule);
    });
  }

  stop(key: string): Promise<void> {
    return this.track(() => {
      this.running.delete(key);
      return this.inner.stop(key);
    });
  }

  /** Applies the module setting; resolves once every rule runs on the engine it asks for. */
  async setThreads(setting: number): Promise<void> {
    while (this.switching) await this.switching;
    const threads = webThreadCount(setting);
    if (threads === this.threads) return;
    this.switching = (async () => {
      await Promise.allSettled([...this.inFlight]);
      const before = this.threadCount;
      await this.inner.close();
      this.threads = threads;
      this.inner = createWebEngine({ ...this.opts, threads });
      for (const [key, rule] of this.running) await this.inner.start(key, rule);
      this.opts.log.info({ from: before, to: this.threadCount, rules: this.running.size }, 'web rules moved to a new number of serving threads');
    })();
    try {
      await this.switching;
    } finally {
      this.switching = null;
    }
  }

  status(key: string) {
    return this.inner.status(key);
  }

  firewallNote(key: string) {
    return this.inner.firewallNote(key);
  }

  figures(key: string) {
    return this.inner.figures(key);
  }

  accessLog(key: string, limit: number) {
    return this.inner.accessLog(key, limit);
  }

  connections(): number {
    return this.inner.connections();
  }

  async close(): Promise<void> {
    while (this.switching) await this.switching;
    this.running.clear();
    await this.inner.close();
  }
}
