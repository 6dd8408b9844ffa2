/**
 * Firewall auto-allow against real nftables, in a network namespace the test creates: its own
 * firewall (an `inet filter input` chain that drops), its own addresses on a veth link. A port the
 * chain drops is reachable from outside while the rule is open, and dropped again once closed.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestHost, freeLink, type TestHost } from '../../test/netns.js';
import { statusText } from '../../core/engine.js';
import { NftFirewall } from './web.firewall.js';

const { host: HOST, inside: INSIDE } = freeLink('10.79');
const PORT = 18080;

let ns: TestHost;
let server: ChildProcess | undefined;
let fw: NftFirewall;

/** What the rule status says of an open (in English). */
const open = async (f: NftFirewall, key: string, port: number, network: 'tcp4' | 'tcp6' = 'tcp4') => statusText([await f.open(key, port, network)], 'en_US');

/** What a client outside the namespace gets from the port: the server's greeting, or 'dropped'. */
function reach(): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({ host: INSIDE, port: PORT, localAddress: HOST, timeout: 1000 });
    let got = '';
    s.on('data', (c) => (got += c));
    s.on('end', () => resolve(got));
    s.on('timeout', () => {
      s.destroy();
      resolve('dropped');
    });
    s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
  });
}

const nft = (...args: string[]) => ns.exec('nft', args);
const tagged = async (key: string) => (await nft('-a', 'list', 'chain', 'inet', 'filter', 'input')).split('\n').filter((l) => l.includes(`"lucky-web-${key}"`));

describe('nftables auto-allow (real nft in a network namespace)', () => {
  beforeAll(async () => {
    ns = createTestHost('fw', [`${HOST}/24`], [`${INSIDE}/24`]);
    await nft('add', 'table', 'inet', 'filter');
    await nft('add', 'chain', 'inet', 'filter', 'input', '{ type filter hook input priority 0; policy drop; }');
    // The namespace's own server, greeting each client; it says when it listens.
    server = spawn('ip', ['netns', 'exec', ns.name, process.execPath, '-e', `require('node:net').createServer((s) => s.on('error', () => {}).end('hi')).listen(${PORT}, '${INSIDE}', () => console.log('ready'))`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('the server in the namespace did not start')), 10_000);
      server!.stdout!.on('data', () => {
        clearTimeout(t);
        resolve();
      });
    });
    fw = new NftFirewall(['ip', 'netns', 'exec', ns.name, 'nft']);
  }, 30_000);

  afterAll(() => {
    server?.kill('SIGKILL');
    ns?.remove();
  });

  it('drops the port until the rule opens it, and again once the rule closes', async () => {
    expect(await reach()).toBe('dropped');
    expect(await open(fw, 'k1', PORT)).toBe(`opened tcp/${PORT}`);
    expect(await reach()).toBe('hi');
    const lines = await tagged('k1');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`tcp dport ${PORT} accept`);
    await fw.close('k1');
    expect(await tagged('k1')).toEqual([]);
    expect(await reach()).toBe('dropped');
  });

  it('replaces a rule left by an earlier run of the daemon instead of adding a second', async () => {
    await open(new NftFirewall(['ip', 'netns', 'exec', ns.name, 'nft']), 'k2', PORT);
    // A new process (a restart) opens the same rule: one accept rule, which it can also close.
    expect(await open(fw, 'k2', PORT)).toBe(`opened tcp/${PORT}`);
    expect(await tagged('k2')).toHaveLength(1);
    // A port change moves it.
    await fw.open('k2', PORT + 1, 'tcp4');
    const moved = await tagged('k2');
    expect(moved).toHaveLength(1);
    expect(moved[0]).toContain(`tcp dport ${PORT + 1} accept`);
    expect(await reach()).toBe('dropped');
    await fw.close('k2');
    expect(await tagged('k2')).toEqual([]);
  });

  it('a tcp6 rule opens IPv6 only', async () => {
    await fw.open('k3', PORT, 'tcp6');
    expect((await tagged('k3'))[0]).toContain('meta nfproto ipv6');
    expect(await reach()).toBe('dropped');
    await fw.close('k3');
  });

  it('as an unprivileged user says it needs the right, and opens with an nft that carries CAP_NET_ADMIN (as in the Docker image)', async () => {
    const asNobody = (nftPath: string) => new NftFirewall(['ip', 'netns', 'exec', ns.name, 'setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', nftPath]);
    expect(await open(asNobody('/usr/sbin/nft'), 'k5', PORT)).toBe('not opened: not permitted (needs root or NET_ADMIN)');
    const dir = mkdtempSync(join(tmpdir(), 'lucky-nft-'));
    try {
      chmodSync(dir, 0o755);
      copyFileSync('/usr/sbin/nft', join(dir, 'nft'));
      execFileSync('setcap', ['cap_net_admin+ep', join(dir, 'nft')]);
      const fwCap = asNobody(join(dir, 'nft'));
      expect(await open(fwCap, 'k5', PORT)).toBe(`opened tcp/${PORT}`);
      expect(await reach()).toBe('hi');
      await fwCap.close('k5');
      expect(await tagged('k5')).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says why nothing was opened when nft is missing or the chain does not exist', async () => {
    expect(await open(new NftFirewall(['/nonexistent/nft']), 'k4', PORT)).toBe('not opened: nft is not installed');
    await nft('delete', 'table', 'inet', 'filter');
    expect(await open(fw, 'k4', PORT)).toBe('not needed: no inet filter input chain');
    // Without a chain the port is not filtered here at all.
    expect(await reach()).toBe('hi');
    await fw.close('k4');
  });
});
