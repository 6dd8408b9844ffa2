/**
 * How a form holds an HTTP request the daemon makes for the user (a webhook, a DDNS callback):
 * headers as one-a-line text, the rest as the contracts have it; presets filled in from the daemon.
 */
import { SECRET_MASK, type Webhook } from '@lucky/contracts';
import { joinLines } from '../form/values';
import { lines } from '../../lib/helpers';

/** What webhooks and callbacks have alike, as their forms hold them. */
export interface RequestForm {
  preset: string;
  url: string;
  method: Webhook['method'];
  headers: string;
  body: string;
  successCheck: Webhook['successCheck'];
}

/** A preset as the daemon gives it: any of the request's fields. */
export type PresetValues = Partial<Omit<RequestForm, 'headers'>> & { headers?: string[]; [field: string]: unknown };

/** A module's webhook (the contracts' webhook, or one that extends it) as its form holds it. */
export type WebhookFormOf<W extends Webhook = Webhook> = Omit<W, 'headers'> & { headers: string };

export const webhookToForm = <W extends Webhook>(w: W): WebhookFormOf<W> => ({
  ...w,
  headers: joinLines(w.headers),
  successCheck: { ...w.successCheck },
  proxy: { ...w.proxy },
});

export const webhookToBody = <W extends Webhook>(w: WebhookFormOf<W>): W =>
  ({
    ...w,
    url: w.url.trim(),
    headers: lines(w.headers),
    successCheck: { ...w.successCheck },
    proxy: { ...w.proxy, address: w.proxy.address.trim() },
  }) as unknown as W;

/**
 * A preset's values over a webhook or callback: the preset's own fields replace the form's; what it
 * does not set (the switch, the proxy, anything the form lacks) stays.
 */
export function applyPreset<F extends RequestForm>(f: F, preset: F['preset'], values: PresetValues | undefined): F {
  const { headers, successCheck, ...plain } = values ?? {};
  const own = Object.fromEntries(Object.entries(plain).filter(([k, v]) => v !== undefined && k in f && k !== 'enable' && k !== 'proxy'));
  return {
    ...f,
    ...own,
    preset,
    ...(headers !== undefined ? { headers: joinLines(headers) } : {}),
    ...(successCheck !== undefined ? { successCheck: { ...successCheck } } : {}),
  };
}

/** A stored secret comes back as its mask. */
export const isMask = (s: string) => s === SECRET_MASK;
