/**
 * Firewall auto-allow: while a rule runs, an nftables accept rule for its port sits in the host's
 * `inet filter input` chain, tagged with the rule's key. nft decides whether it is permitted (root,
 * or CAP_NET_ADMIN: the Docker image gives the nft binary that capability, which works where the
 * container was granted NET_ADMIN); otherwise the reason is reported and the web rule runs regardless.
 */
import { execFile } from 'node:child_process';
import type { StatusPart } from '../../core/engine.js';

export interface Firewall {
  /** Resolves with what was done, for the rule status: the port opened, or why not. Never rejects. */
  open(key: string, port: number, network: 'tcp4' | 'tcp6'): Promise<StatusPart>;
  close(key: string): Promise<void>;
}

/** What the rule's auto-allow switch asks for: the port opened (and what came of it), or closed (null). */
export async function applyFirewall(fw: Firewall, key: string, rule: { firewallAllow: boolean; port: number; network: 'tcp4' | 'tcp6' }): Promise<StatusPart | null> {
  if (rule.firewallAllow) return fw.open(key, rule.port, rule.network);
  await fw.close(key);
  return null;
}

/** The note as a part of the rule status (and, in English, of its log line). */
export function firewallPart(note: StatusPart): StatusPart {
  return { key: 'statusFirewall', vars: { detail: note } };
}

const CHAIN = ['inet', 'filter', 'input'];

export class NftFirewall implements Firewall {
  /** Rules this process opened, by key. */
  private opened = new Set<string>();

  /** `nft`: the command (and arguments before nft's own) that changes the firewall; tests run it in a namespace of their own. */
  constructor(private nft: string[] = ['nft']) {}

  private run(args: string[]): Promise<{ ok: boolean; out: string }> {
    const [cmd, ...pre] = this.nft;
    return new Promise((resolve) => {
      execFile(cmd!, [...pre, ...args], { timeout: 5000 }, (err, stdout, stderr) => {
        resolve({ ok: !err, out: err ? String(stderr || (err as Error).message).trim() : stdout });
      });
    });
  }

  private tag(key: string): string {
    return `lucky-web-${key}`;
  }

  /** Deletes every rule tagged for `key`, also ones left by an earlier run of the daemon. */
  private async sweep(key: string): Promise<void> {
    const list = await this.run(['-a', 'list', 'chain', ...CHAIN]);
    if (!list.ok) return;
    const tag = `comment "${this.tag(key)}"`;
    for (const line of list.out.split('\n')) {
      const m = line.includes(tag) ? /# handle (\d+)/.exec(line) : null;
      if (m) await this.run(['delete', 'rule', ...CHAIN, 'handle', m[1]!]);
    }
  }

  async open(key: string, port: number, network: 'tcp4' | 'tcp6'): Promise<StatusPart> {
    this.opened.delete(key);
    if (process.platform !== 'linux') return { key: 'fwLinuxOnly' };
    const chain = await this.run(['list', 'chain', ...CHAIN]);
    if (!chain.ok) {
      if (/ENOENT|not found/i.test(chain.out)) return { key: 'fwNoNft' };
      // Refused by netlink, or the binary's capability is beyond what this process may hold.
      if (/EPERM|Operation not permitted|Permission denied/i.test(chain.out)) return { key: 'fwNeedsRoot' };
      if (/No such file or directory|does not exist/i.test(chain.out)) return { key: 'fwNoChain' };
      return { key: 'fwFailed', vars: { detail: chain.out.split('\n')[0] || 'nft failed' } };
    }
    await this.sweep(key);
    // The rule's own address family only: a tcp4 rule does not listen on IPv6.
    const family = network === 'tcp6' ? 'ipv6' : 'ipv4';
    const add = await this.run(['insert', 'rule', ...CHAIN, 'meta', 'nfproto', family, 'tcp', 'dport', String(port), 'accept', 'comment', `"${this.tag(key)}"`]);
    if (!add.ok) return { key: 'fwFailed', vars: { detail: add.out.split('\n')[0] || 'nft failed' } };
    this.opened.add(key);
    return { key: 'fwOpened', vars: { port } };
  }

  async close(key: string): Promise<void> {
    // Rules never opened cost nothing to stop: no nft call.
    if (!this.opened.delete(key)) return;
    await this.sweep(key);
  }
}
