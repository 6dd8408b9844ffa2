/**
 * Firewall auto-allow: while a rule runs, an nftables accept rule for its port sits in the host's
 * `inet filter input` chain. Only tried when permitted (root, nft present, that chain exists);
 * otherwise the reason is reported and the web rule runs regardless.
 */
import { execFile } from 'node:child_process';

export interface Firewall {
  /** Resolves with a short note for the rule status: `opened tcp/8080` or why not. Never rejects. */
  open(key: string, port: number, network: 'tcp4' | 'tcp6'): Promise<string>;
  close(key: string): Promise<void>;
}

/** What the rule's auto-allow switch asks for: the port opened (and what came of it), or closed ('off'). */
export async function applyFirewall(fw: Firewall, key: string, rule: { firewallAllow: boolean; port: number; network: 'tcp4' | 'tcp6' }): Promise<string> {
  if (rule.firewallAllow) return fw.open(key, rule.port, rule.network);
  await fw.close(key);
  return 'off';
}

function run(cmd: string, args: string[]): Promise<{ ok: boolean; out: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: 5000 }, (err, stdout, stderr) => {
      resolve({ ok: !err, out: err ? String(stderr || (err as Error).message).trim() : stdout });
    });
  });
}

export class NftFirewall implements Firewall {
  private opened = new Map<string, number>();

  private comment(key: string): string {
    return `lucky-web-${key}`;
  }

  async open(key: string, port: number, network: 'tcp4' | 'tcp6'): Promise<string> {
    await this.close(key);
    if (process.platform !== 'linux') return 'not opened: nftables exists on Linux only';
    if (typeof process.getuid === 'function' && process.getuid() !== 0) return 'not opened: not permitted (needs root)';
    const chain = await run('nft', ['list', 'chain', 'inet', 'filter', 'input']);
    if (!chain.ok) {
      if (/ENOENT|not found/i.test(chain.out)) return 'not opened: nft is not installed';
      if (/No such file or directory|does not exist/i.test(chain.out)) return 'not needed: no inet filter input chain';
      return `not opened: ${chain.out.split('\n')[0] ?? 'nft failed'}`;
    }
    const family = network === 'tcp6' ? 'ip6 nexthdr tcp' : 'meta l4proto tcp';
    const add = await run('nft', [
      'insert', 'rule', 'inet', 'filter', 'input', ...family.split(' '), 'tcp', 'dport', String(port), 'accept',
      'comment', `"${this.comment(key)}"`,
    ]);
    if (!add.ok) return `not opened: ${add.out.split('\n')[0] ?? 'nft failed'}`;
    this.opened.set(key, port);
    return `opened tcp/${port}`;
  }

  async close(key: string): Promise<void> {
    if (!this.opened.has(key)) return;
    this.opened.delete(key);
    const list = await run('nft', ['-a', 'list', 'chain', 'inet', 'filter', 'input']);
    if (!list.ok) return;
    const tag = `comment "${this.comment(key)}"`;
    for (const line of list.out.split('\n')) {
      const m = line.includes(tag) ? /# handle (\d+)/.exec(line) : null;
      if (m) await run('nft', ['delete', 'rule', 'inet', 'filter', 'input', 'handle', m[1]!]);
    }
  }
}
