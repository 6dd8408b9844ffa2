/**
 * Telling the user and their tools that the public address changed: the rule's webhook, its
 * command, and the DDNS tasks it publishes through. Each outcome goes to the rule's log; none of
 * them can stop the rule.
 */
import { spawn } from 'node:child_process';
import type { Msg, StunRule } from '@lucky/contracts';
import type { DnsProvidersService } from '../../core/services/dnsProviders.js';
import type { WebhooksService } from '../../core/services/webhooks.js';
import { msgOf } from '../../lib/msgerror.js';

/** Output kept from a command, for the log line. */
const OUTPUT_MAX = 2048;

export interface Announcement {
  ip: string;
  port: number;
  localPort: number;
  rule: StunRule;
}

export interface NotifyDeps {
  webhooks: WebhooksService;
  dnsProviders: DnsProvidersService;
  childEnv: Readonly<Record<string, string>>;
  note(m: Msg): void;
}

/** The values of `#{…}` in the webhook, also the command's environment. */
export function announcementValues(a: Announcement): Record<string, string | number> {
  return { ip: a.ip, port: a.port, addr: `${a.ip}:${a.port}`, ruleName: a.rule.name, localPort: a.localPort, protocol: a.rule.protocol };
}

export async function announce(a: Announcement, d: NotifyDeps): Promise<void> {
  const jobs: Promise<void>[] = [];
  if (a.rule.webhook.enable) {
    jobs.push(
      d.webhooks.call(a.rule.webhook, announcementValues(a)).then((r) => {
        if (r) d.note({ key: 'stunWebhookDone', vars: { result: r.reason } });
      }),
    );
  }
  if (a.rule.command.enable) jobs.push(runCommand(a, d));
  for (const task of a.rule.ddnsTasks) jobs.push(publish(task, a, d));
  await Promise.all(jobs);
}

async function publish(task: string, a: Announcement, d: NotifyDeps): Promise<void> {
  const ref = d.dnsProviders.tasks().find((t) => t.key === task);
  if (!ref) return d.note({ key: 'stunDdnsTaskMissing', vars: { task } });
  try {
    const records = await d.dnsProviders.publish(task, { ipv4: a.ip }, 'stun');
    for (const r of records) {
      d.note({ key: 'stunDdnsPublished', vars: { task: ref.name, result: r.reason ?? { key: 'rawText', vars: { text: `${r.domain} ${r.type} ${r.ip} ${r.status}` } } } });
    }
  } catch (err) {
    d.note({ key: 'stunDdnsFailed', vars: { task: ref.name, detail: msgOf(err) } });
  }
}

/** Runs the rule's command with the values in its environment; the whole process group dies at the timeout. */
function runCommand(a: Announcement, d: NotifyDeps): Promise<void> {
  const values = announcementValues(a);
  const env: Record<string, string> = { ...d.childEnv };
  for (const [k, v] of Object.entries({ IP: values.ip, PORT: values.port, ADDR: values.addr, LOCAL_PORT: values.localPort, PROTOCOL: values.protocol, RULE: values.ruleName })) {
    env[`LUCKY_STUN_${k}`] = String(v);
  }
  const { line, timeout } = a.rule.command;
  return new Promise((resolve) => {
    let output = '';
    let timedOut = false;
    const child = spawn('/bin/sh', ['-c', line], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (c: Buffer) => {
      if (output.length < OUTPUT_MAX) output += c.toString('utf8').slice(0, OUTPUT_MAX - output.length);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeout * 1000);
    child.on('error', (err) => {
      clearTimeout(timer);
      d.note({ key: 'stunCommandFailed', vars: { detail: err.message } });
      resolve();
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (timedOut) d.note({ key: 'stunCommandTimeout', vars: { seconds: timeout } });
      else d.note({ key: 'stunCommandDone', vars: { code: code ?? -1, output: output.trim() } });
      resolve();
    });
  });
}
