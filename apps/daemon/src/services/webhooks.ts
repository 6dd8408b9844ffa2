/**
 * The daemon's `webhooks` service. Light to create: the HTTP client (undici) is imported with the
 * first call, so a daemon whose modules never send a webhook never loads it.
 */
import type { Webhook } from '@lucky/contracts';
import { formatTime } from '../core/time.js';
import type { WebhookCallOptions, WebhooksService } from '../core/services/index.js';
import type { HttpClients } from '../lib/http/clients.js';
import { callWebhook, webhookPresets, type WebhookResult, type WebhookValues } from '../lib/webhook/webhook.js';

export class Webhooks implements WebhooksService {
  private clients: Promise<HttpClients> | null = null;

  async call(webhook: Webhook, values: WebhookValues, opts: WebhookCallOptions = {}): Promise<WebhookResult | null> {
    return webhook.enable ? this.send(webhook, values, opts) : null;
  }

  test(webhook: Webhook, sample: WebhookValues, opts: WebhookCallOptions = {}): Promise<WebhookResult> {
    return this.send(webhook, sample, opts);
  }

  presets = webhookPresets;

  private async send(webhook: Webhook, values: WebhookValues, opts: WebhookCallOptions): Promise<WebhookResult> {
    this.clients ??= import('../lib/http/clients.js').then((m) => new m.HttpClients());
    const http = (await this.clients).client({ timeoutMs: opts.timeoutMs ?? 10_000, proxy: webhook.proxy, skipVerify: opts.skipVerify ?? false });
    return callWebhook(webhook, { time: formatTime(Date.now()), ...values }, http);
  }

  /** The daemon closes: connections kept alive for the next call are closed. */
  async close(): Promise<void> {
    const clients = this.clients;
    this.clients = null;
    if (clients) await (await clients).close();
  }
}
