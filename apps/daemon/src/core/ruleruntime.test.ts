/**
 * The rule runtime with a real engine: each rule is a TCP server on its port, so claims, refusals,
 * retries and stops are seen on real sockets.
 */
import { EventEmitter } from 'node:events';
import { createServer, connect, type Server } from 'node:net';
import { renderMsgs } from '@lucky/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../test/harness.js';
import { listenProblem, RuleProblem, RuleWaits, type Engine, type RuleContext } from './engine.js';
import { createProgramLog, sayer } from './logs.js';
import { PortRegistry } from './ports.js';
import { RuleLog } from './rulelog.js';
import { RuleRuntime } from './ruleruntime.js';

interface EchoRule {
  name: string;
  enable: boolean;
  port: number;
  reply: string;
}

/** Answers every connection with the rule's `reply`; an edit of the reply is applied in place. */
class EchoEngine implements Engine<EchoRule, unknown, { served: number }> {
  starts = 0;
  closed = 0;
  /** While closed, a start waits for it (as a web rule for a certificate being ordered). */
  gate: { open: boolean; events: EventEmitter; until?: (ready: () => void) => () => void } | null = null;
  async start(rule: EchoRule, ctx: RuleContext<unknown>) {
    this.starts++;
    const gate = this.gate;
    if (gate && !gate.open) {
      throw new RuleWaits(
        { key: 'certWaiting', vars: { name: 'gate' } },
        gate.until ??
          ((ready) => {
            gate.events.on('open', ready);
            return () => void gate.events.off('open', ready);
          }),
      );
    }
    let reply = rule.reply;
    let served = 0;
    const server: Server = createServer((s) => {
      served++;
      s.end(reply);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) => reject(new RuleProblem(listenProblem(`tcp 127.0.0.1:${rule.port}`, rule.port, err.code, err.message))));
      server.listen({ host: '127.0.0.1', port: rule.port, exclusive: true }, resolve);
    });
    ctx.note({ key: 'statusListening', vars: { address: `127.0.0.1:${rule.port}` } });
    return {
      stop: () => new Promise<void>((r) => server.close(() => r())),
      update: (next: EchoRule) => {
        if (next.port !== rule.port) return false;
        reply = next.reply;
        return true;
      },
      figures: () => ({ served }),
    };
  }
  async close() {
    this.closed++;
  }
}

function fetchLine(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const s = connect(port, '127.0.0.1');
    s.on('data', (d) => (text += d));
    s.on('end', () => resolve(text));
    s.on('error', reject);
  });
}

const waitFor = async (cond: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

function setup(changed?: (key: string) => void) {
  const rules = new Map<string, EchoRule>();
  const engine = new EchoEngine();
  let loads = 0;
  const ports = new PortRegistry();
  const logs = new RuleLog();
  const rt = new RuleRuntime<EchoRule, unknown, { served: number }>({
    module: 'web',
    store: {
      get: (k) => (rules.has(k) ? { data: rules.get(k)! } : undefined),
      list: () => [...rules].map(([key, data]) => ({ key, data })),
    },
    settings: () => ({}),
    engine: async () => {
      loads++;
      return engine;
    },
    listens: (r) => [{ proto: 'tcp', address: '127.0.0.1', port: r.port }],
    ports,
    say: sayer(createProgramLog({ level: 2, capacity: 10 }).logger),
    logs,
    retry: { firstMs: 100, maxMs: 200 },
    ...(changed ? { changed } : {}),
  });
  return { rules, engine, rt, ports, logs, loads: () => loads };
}

const blockers: Server[] = [];
afterEach(() => {
  for (const b of blockers.splice(0)) b.close();
});

describe('the rule runtime', () => {
  it('imports the engine only when a rule first starts, and lets it go when the module stops', async () => {
    const t = setup();
    const port = await freePort();
    t.rules.set('a', { name: 'A', enable: false, port, reply: 'a' });
    await t.rt.startAll();
    expect(t.loads()).toBe(0);
    t.rules.set('a', { name: 'A', enable: true, port, reply: 'a' });
    await t.rt.apply('a');
    expect(t.loads()).toBe(1);
    expect(t.rt.status('a').state).toBe('running');
    expect(await fetchLine(port)).toBe('a');
    expect(await t.rt.figures('a')).toEqual({ served: 1 });
    await t.rt.stopAll();
    expect(t.engine.closed).toBe(1);
    expect(t.ports.list()).toEqual([]);
    await expect(fetchLine(port)).rejects.toThrow();
  });

  it('gives a contested port to the first rule and shows the second one why it waits, then hands it over', async () => {
    const t = setup();
    const port = await freePort();
    t.rules.set('a', { name: 'First', enable: true, port, reply: 'first' });
    t.rules.set('b', { name: 'Second', enable: true, port, reply: 'second' });
    await t.rt.startAll();
    expect(t.rt.status('a').state).toBe('running');
    const s = t.rt.status('b');
    expect(s.state).toBe('error');
    expect(renderMsgs('en_US', s.parts!)).toBe(`tcp 127.0.0.1:${port} is taken by the web services rule "First"`);
    // Every connection reaches the owner: the second rule never listens beside it.
    for (let i = 0; i < 10; i++) expect(await fetchLine(port)).toBe('first');
    t.rules.set('a', { name: 'First', enable: false, port, reply: 'first' });
    await t.rt.apply('a');
    await waitFor(() => t.rt.status('b').state === 'running');
    expect(await fetchLine(port)).toBe('second');
    expect(t.logs.since('b', 0, 'en_US').map((l) => l.log.slice(20))).toEqual([
      `could not start: tcp 127.0.0.1:${port} is taken by the web services rule "First"`,
      'retrying in 0 s',
      `listening on 127.0.0.1:${port}`,
      'started',
    ]);
    await t.rt.stopAll();
  });

  it('shows a port held by another program as the rule error, retries, and starts once it is free', async () => {
    const t = setup();
    const port = await freePort();
    const blocker = createServer().listen(port, '127.0.0.1');
    blockers.push(blocker);
    await new Promise((r) => blocker.once('listening', r));
    t.rules.set('a', { name: 'A', enable: true, port, reply: 'a' });
    await t.rt.startAll();
    expect(t.rt.status('a')).toMatchObject({ state: 'error' });
    expect(renderMsgs('zh_CN', t.rt.status('a').parts!)).toBe(`端口 ${port} 已被占用（tcp 127.0.0.1:${port}）`);
    await new Promise<void>((r) => blocker.close(() => r()));
    await waitFor(() => t.rt.status('a').state === 'running');
    expect(await fetchLine(port)).toBe('a');
    await t.rt.stopAll();
  });

  it('applies an edit in place when the engine can, and restarts the rule when it cannot', async () => {
    const t = setup();
    const [p1, p2] = [await freePort(), await freePort()];
    t.rules.set('a', { name: 'A', enable: true, port: p1, reply: 'one' });
    await t.rt.startAll();
    t.rules.set('a', { name: 'A', enable: true, port: p1, reply: 'two' });
    await t.rt.apply('a');
    expect(t.engine.starts).toBe(1);
    expect(await fetchLine(p1)).toBe('two');
    t.rules.set('a', { name: 'A', enable: true, port: p2, reply: 'three' });
    await t.rt.apply('a');
    expect(t.engine.starts).toBe(2);
    expect(await fetchLine(p2)).toBe('three');
    await expect(fetchLine(p1)).rejects.toThrow();
    expect(t.ports.list().map((c) => c.endpoint.port)).toEqual([p2]);
    await t.rt.stopAll();
  });

  it('runs starts and stops of one rule in order, however fast they come', async () => {
    const t = setup();
    const port = await freePort();
    t.rules.set('a', { name: 'A', enable: true, port, reply: 'a' });
    await t.rt.startAll();
    const calls: Promise<void>[] = [];
    for (let i = 0; i < 20; i++) {
      t.rules.set('a', { name: 'A', enable: i % 2 === 1, port, reply: `r${i}` });
      calls.push(t.rt.apply('a'));
    }
    await Promise.all(calls);
    expect(t.rt.status('a').state).toBe('running');
    expect(await fetchLine(port)).toBe('r19');
    await t.rt.stopAll();
  });

  it('waits without an error or a retry timer, and starts the moment what it waits for is there', async () => {
    const t = setup();
    const port = await freePort();
    const gate = { open: false, events: new EventEmitter() };
    t.engine.gate = gate;
    t.rules.set('a', { name: 'A', enable: true, port, reply: 'a' });
    await t.rt.startAll();
    expect(t.rt.status('a')).toMatchObject({ state: 'waiting', message: 'waiting for certificate gate: not in the store yet (being ordered or read); serving starts the moment it is stored' });
    // The port stays the rule's meanwhile; nothing listens on it, and nothing is retried (retries are 100 ms apart here).
    expect(t.ports.list().map((c) => c.owner.key)).toEqual(['a']);
    await expect(fetchLine(port)).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 400));
    expect(t.engine.starts).toBe(1);
    expect(gate.events.listenerCount('open')).toBe(1);
    gate.open = true;
    gate.events.emit('open');
    await waitFor(() => t.rt.status('a').state === 'running');
    expect(await fetchLine(port)).toBe('a');
    expect(t.engine.starts).toBe(2);
    expect(gate.events.listenerCount('open')).toBe(0);
    expect(t.logs.since('a', 0, 'en_US').map((l) => l.log.slice(20))).toEqual([
      'not started yet: waiting for certificate gate: not in the store yet (being ordered or read); serving starts the moment it is stored',
      `listening on 127.0.0.1:${port}`,
      'started',
    ]);
    await t.rt.stopAll();
  });

  it('starts at once when what it waits for came while the start was failing', async () => {
    const t = setup();
    const port = await freePort();
    const gate: NonNullable<EchoEngine['gate']> = { open: false, events: new EventEmitter() };
    // It is there by the time the runtime listens for it: no event will come.
    gate.until = (ready) => {
      gate.open = true;
      ready();
      return () => undefined;
    };
    t.engine.gate = gate;
    t.rules.set('a', { name: 'A', enable: true, port, reply: 'a' });
    await t.rt.startAll();
    await waitFor(() => t.rt.status('a').state === 'running');
    expect(t.engine.starts).toBe(2);
    expect(await fetchLine(port)).toBe('a');
    await t.rt.stopAll();
  });

  it('a waiting rule switched off stops waiting: nothing starts it afterwards', async () => {
    const t = setup();
    const port = await freePort();
    const gate = { open: false, events: new EventEmitter() };
    t.engine.gate = gate;
    t.rules.set('a', { name: 'A', enable: true, port, reply: 'a' });
    await t.rt.startAll();
    expect(t.rt.status('a').state).toBe('waiting');
    t.rules.set('a', { name: 'A', enable: false, port, reply: 'a' });
    await t.rt.apply('a');
    expect(gate.events.listenerCount('open')).toBe(0);
    expect(t.ports.list()).toEqual([]);
    gate.open = true;
    gate.events.emit('open');
    await new Promise((r) => setTimeout(r, 100));
    expect(t.engine.starts).toBe(1);
    await expect(fetchLine(port)).rejects.toThrow();
    await t.rt.stopAll();
  });

  it('tells each new status once: an error retried alike is not told again; a rule that never ran is not told it stopped', async () => {
    const told: string[] = [];
    const t = setup((key) => told.push(`${key}:${t.rt.status(key).state}`));
    const port = await freePort();
    const blocker = createServer().listen(port, '127.0.0.1');
    blockers.push(blocker);
    await new Promise((r) => blocker.once('listening', r));
    t.rules.set('a', { name: 'A', enable: true, port, reply: 'a' });
    t.rules.set('off', { name: 'Off', enable: false, port: 1, reply: '' });
    await t.rt.startAll();
    await t.rt.apply('off');
    // Retried (after 100, then 200 ms), each time failing alike.
    await waitFor(() => t.engine.starts >= 3);
    expect(told).toEqual(['a:error']);
    await new Promise<void>((r) => blocker.close(() => r()));
    await waitFor(() => told.length === 2);
    expect(told).toEqual(['a:error', 'a:running']);
    t.rules.set('a', { name: 'A', enable: true, port, reply: 'b' });
    await t.rt.apply('a');
    t.rules.delete('a');
    await t.rt.apply('a');
    await t.rt.stopAll();
    // The edit applied in place changed nothing to tell.
    expect(told).toEqual(['a:error', 'a:running', 'a:stopped']);
  });
});
