/**
 * `webhooks`: calling the user's webhooks with a module's values, the push-service presets around a
 * module's message, and the "test" button. Provided by the daemon itself (services/webhooks.ts);
 * used by DDNS, STUN, scheduled tasks and ACME.
 */
import type { Webhook, WebhookPreset } from '@lucky/contracts';
import type { WebhookMessage, WebhookResult, WebhookValues } from '../../lib/webhook/webhook.js';

export interface WebhookCallOptions {
  /** Default 10 s. */
  timeoutMs?: number;
  /** Accept any certificate from the webhook's server. */
  skipVerify?: boolean;
}

export interface WebhooksService {
  /**
   * Calls the webhook with the caller's values (`#{time}` is always one of them); null when the
   * webhook is switched off. Never throws: the result says what happened.
   */
  call(webhook: Webhook, values: WebhookValues, opts?: WebhookCallOptions): Promise<WebhookResult | null>;
  /** The "test" button: a call, switched on or not, with sample values standing in for real ones. */
  test(webhook: Webhook, sample: WebhookValues, opts?: WebhookCallOptions): Promise<WebhookResult>;
  /** Common push services, each wrapping the caller's title and text (templates of its values). */
  presets(message: WebhookMessage): Record<WebhookPreset, Partial<Webhook>>;
}

export type { WebhookMessage, WebhookResult, WebhookValues };
