/**
 * docker/Dockerfile without a Docker engine: its final stage read statically (nftables installed,
 * one HEALTHCHECK in exec form), and the health check's own command run against a real daemon.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './test/harness.js';
import { DAEMON_NODE_OPTIONS } from './nodeoptions.js';
import { api, cleanUp, login, run, tempDir, waitFor } from './test/proc.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const DOCKERFILE = join(ROOT, 'docker', 'Dockerfile');

interface Instruction {
  op: string;
  args: string;
}

/** Instructions in order, continuation lines joined, comments and blank lines dropped. */
function instructions(text: string): Instruction[] {
  const lines = text.split('\n').filter((l) => !/^\s*#/.test(l));
  return lines
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const [, op, args] = /^\s*(\S+)\s*(.*)$/.exec(l)!;
      return { op: op!.toUpperCase(), args: args!.trim() };
    });
}

/** The instructions after the last FROM: what the image that runs is made of. */
function finalStage(all: Instruction[]): Instruction[] {
  const from = all.map((i) => i.op).lastIndexOf('FROM');
  return all.slice(from);
}

const seconds = (d: string) => Number(/^(\d+)s$/.exec(d)?.[1] ?? NaN);

interface HealthCheck {
  options: Record<string, string>;
  command: string[];
}

function healthCheck(stage: Instruction[]): HealthCheck {
  const found = stage.filter((i) => i.op === 'HEALTHCHECK');
  expect(found, 'exactly one HEALTHCHECK in the final stage').toHaveLength(1);
  const m = /^((?:--[\w-]+=\S+\s+)*)CMD\s+(\[.*\])$/.exec(found[0]!.args);
  expect(m, `HEALTHCHECK ... CMD ["..."] (exec form): ${found[0]!.args}`).not.toBeNull();
  const options = Object.fromEntries([...m![1]!.matchAll(/--([\w-]+)=(\S+)/g)].map((o) => [o[1]!, o[2]!]));
  return { options, command: JSON.parse(m![2]!) as string[] };
}

const stage = finalStage(instructions(readFileSync(DOCKERFILE, 'utf8')));
const check = healthCheck(stage);
const script = check.command[2]!;

/** Runs the health check's command as Docker would, with `env` as the container's; its exit code. */
function probe(env: Record<string, string>): Promise<{ code: number | null; ms: number }> {
  const started = Date.now();
  const [cmd, ...args] = check.command;
  // The command names node; here it is this very node binary.
  const child = spawn(cmd === 'node' ? process.execPath : cmd!, args, { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'ignore' });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, ms: Date.now() - started })));
}

/** The Node majors a package.json `engines.node` range admits among `majors` (forms used here: ^M.m.p, >=M). */
function admitted(range: string, majors: number[]): number[] {
  return majors.filter((m) =>
    range.split('||').some((r) => {
      const [, op, major] = /^\s*(\^|>=)(\d+)/.exec(r) ?? [];
      return op === '^' ? Number(major) === m : op === '>=' ? m >= Number(major) : false;
    }),
  );
}

describe('docker/Dockerfile', () => {
  it('builds and runs on the LTS line npm test runs the suite on, the same in both stages, one engines admits', () => {
    const lts = JSON.parse(readFileSync(join(ROOT, 'scripts', 'lib', 'node-lts.json'), 'utf8')) as { version: string };
    const major = Number(lts.version.split('.')[0]);
    const froms = instructions(readFileSync(DOCKERFILE, 'utf8'))
      .filter((i) => i.op === 'FROM')
      .map((i) => /^node:(\d+)-/.exec(i.args)?.[1]);
    expect(froms).toEqual([String(major), String(major)]);
    const engines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    expect(admitted(engines, [major])).toEqual([major]);
  });

  // npm test's runs (LUCKY_TEST_NODES) are the proof of what engines promises: no line without a run.
  const tested = (JSON.parse(process.env.LUCKY_TEST_NODES ?? '[]') as Array<{ version: string }>).map((n) => Number(n.version.split('.')[0]));
  it.runIf(tested.length > 1)('engines names exactly the Node lines npm test runs the suite on', () => {
    const engines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    const lines = Array.from({ length: 31 }, (_, i) => i + 10);
    expect(admitted(engines, lines)).toEqual([...tested].sort((a, b) => a - b));
  });

  it('runs Node with the options every other start of Lucky uses', () => {
    const env = stage.filter((i) => i.op === 'ENV').map((i) => i.args).join(' ');
    expect(/NODE_OPTIONS="([^"]*)"/.exec(env)?.[1]).toBe(DAEMON_NODE_OPTIONS);
  });

  it('installs nft in the final stage, as root, without recommends, with CAP_NET_ADMIN of its own, and drops the apt lists', () => {
    const runs = stage.filter((i) => i.op === 'RUN');
    const nft = runs.find((r) => /\bnftables\b/.test(r.args));
    expect(nft, 'a RUN installing nftables in the final stage').toBeDefined();
    const steps = nft!.args.split('&&').map((s) => s.trim());
    expect(steps[0]).toBe('apt-get update');
    expect(steps).toContain('apt-get install -y --no-install-recommends nftables libcap2-bin');
    // Lucky runs as `node`: nft carries the capability itself (web.firewall.test.ts proves the way).
    expect(steps).toContain('setcap cap_net_admin+ep /usr/sbin/nft');
    expect(steps.at(-1)).toBe('rm -rf /var/lib/apt/lists/*');
    // apt-get needs root: the install comes before the switch to the unprivileged user.
    expect(stage.indexOf(nft!)).toBeLessThan(stage.findIndex((i) => i.op === 'USER'));
    expect(stage.find((i) => i.op === 'USER')!.args).toBe('node');
  });

  it('has a HEALTHCHECK whose command is node -e with valid JavaScript asking /version on LUCKY_PORT', () => {
    expect(check.command.slice(0, 2)).toEqual(['node', '-e']);
    expect(check.command).toHaveLength(3);
    expect(() => new Script(script)).not.toThrow();
    expect(script).toContain("path:'/version'");
    expect(script).toContain('process.env.LUCKY_PORT');
    // A timeout shorter than the interval, a few retries, time to start.
    const { interval, timeout, retries } = check.options;
    expect(seconds(timeout!)).toBeGreaterThan(0);
    expect(seconds(timeout!)).toBeLessThan(seconds(interval!));
    expect(Number(retries)).toBeGreaterThanOrEqual(2);
    expect(seconds(check.options['start-period']!)).toBeGreaterThan(0);
  });

  describe('its health check, run', () => {
    let port: number;
    let token: string;
    const sockets: Socket[] = [];
    let stuck: ReturnType<typeof createTcpServer>;
    let failing: Server;

    beforeAll(async () => {
      port = await freePort();
      // Like the container: port and data dir from the environment, listening on every address.
      const d = run([], { LUCKY_PORT: String(port), LUCKY_DATA_DIR: tempDir(), LUCKY_ADMIN_PASSWORD: 'probe-pw-1' });
      await waitFor(d, /listening on/);
      token = (await login(port, 'probe-pw-1')).token;
      stuck = createTcpServer((s) => sockets.push(s));
      failing = createServer((_req, res) => res.writeHead(503).end());
      await new Promise((r) => stuck.listen(0, '127.0.0.1', () => r(null)));
      await new Promise((r) => failing.listen(0, '127.0.0.1', () => r(null)));
    });
    afterAll(() => {
      for (const s of sockets) s.destroy();
      stuck.close();
      failing.close();
      cleanUp();
    });

    const portOf = (s: { address(): unknown }) => String((s.address() as { port: number }).port);

    it('passes against the running daemon, on LUCKY_PORT and on LUCKY_HOST', async () => {
      expect((await probe({ LUCKY_PORT: String(port) })).code).toBe(0);
      expect((await probe({ LUCKY_PORT: String(port), LUCKY_HOST: '::' })).code).toBe(0);
      expect((await probe({ LUCKY_PORT: String(port), LUCKY_HOST: '127.0.0.1' })).code).toBe(0);
      // With the wrong port it fails: it did ask LUCKY_PORT.
      expect((await probe({ LUCKY_PORT: String(await freePort()) })).code).toBe(1);
    });

    it('still passes with a secret entry path set (the daemon answers, with a 404)', async () => {
      expect((await api(port, 'PUT', '/api/safe/safeurl', { safeURL: 'hidden-door' }, token)).ret).toBe(0);
      expect((await fetch(`http://127.0.0.1:${port}/version`)).status).toBe(404);
      expect((await probe({ LUCKY_PORT: String(port) })).code).toBe(0);
    });

    it('fails on a server error, and on a server that never answers, before Docker would kill it', async () => {
      expect((await probe({ LUCKY_PORT: portOf(failing) })).code).toBe(1);
      const hung = await probe({ LUCKY_PORT: portOf(stuck) });
      expect(hung.code).toBe(1);
      expect(hung.ms).toBeLessThan(seconds(check.options.timeout!) * 1000);
    });
  });
});
