/**
 * ACME Renewal Information (RFC 9773): the CA's suggested window for renewing a certificate, asked
 * for by the certificate's id (its authority key id and serial, base64url), and the time in that
 * window this client picks (at random, so that renewals spread). The id also goes into the new
 * order's `replaces`, which tells the CA which certificate the order renews.
 */
import { X509Certificate } from 'node:crypto';
import { retryAfterMs, type HttpFn } from '../../lib/http/request.js';
import { MsgError } from '../../lib/msgerror.js';
import { children, readDer } from '../../lib/tls/der.js';

const AKI_OID = Buffer.from('0603551d23', 'hex');

/** `base64url(keyIdentifier).base64url(serial)` of the first certificate of a PEM chain. */
export function ariCertId(certPem: string): string {
  const der = new X509Certificate(certPem).raw;
  const tbs = children(readDer(der))[0]!;
  const fields = children(tbs);
  // An explicit version ([0]) comes before the serial.
  const serial = fields[fields[0]!.tag === 0xa0 ? 1 : 0]!;
  const extensions = fields.find((f) => f.tag === 0xa3);
  const aki = extensions && children(children(extensions)[0]!).find((e) => children(e)[0]!.raw.equals(AKI_OID));
  if (!aki) throw new MsgError({ key: 'acmeAriFailed', vars: { detail: 'the certificate has no authority key identifier' } });
  // extnValue is the last element: an OCTET STRING holding SEQUENCE { [0] keyIdentifier, … }.
  const inner = readDer(children(aki).at(-1)!.value);
  const keyId = children(inner).find((c) => c.tag === 0x80);
  if (!keyId) throw new MsgError({ key: 'acmeAriFailed', vars: { detail: 'the authority key identifier has no key id' } });
  return `${keyId.value.toString('base64url')}.${serial.value.toString('base64url')}`;
}

export interface RenewalWindow {
  start: number;
  end: number;
  /** When to ask again (Retry-After; 6 h without one). */
  askAgainAt: number;
  explanationUrl?: string;
}

/** The CA's window for the certificate; null when the CA offers no renewal information. */
export async function renewalWindow(http: HttpFn, renewalInfoUrl: string | undefined, certId: string): Promise<RenewalWindow | null> {
  if (!renewalInfoUrl) return null;
  const res = await http({ url: `${renewalInfoUrl.replace(/\/$/, '')}/${certId}`, headers: { accept: 'application/json' } });
  if (res.status !== 200) throw new MsgError({ key: 'acmeAriFailed', vars: { detail: `HTTP ${res.status} ${res.text.slice(0, 200)}` } });
  let body: { suggestedWindow?: { start?: string; end?: string }; explanationURL?: string };
  try {
    body = JSON.parse(res.text) as typeof body;
  } catch {
    throw new MsgError({ key: 'acmeAriFailed', vars: { detail: res.text.slice(0, 200) } });
  }
  const start = Date.parse(body.suggestedWindow?.start ?? '');
  const end = Date.parse(body.suggestedWindow?.end ?? '');
  if (!Number.isFinite(start) || !Number.isFinite(end) || end < start) throw new MsgError({ key: 'acmeAriFailed', vars: { detail: res.text.slice(0, 200) } });
  // Hours are normal here (the client's 30 s cap is for polling orders): between a minute and a day.
  const asked = retryAfterMs(res.headers['retry-after']);
  const wait = asked === null ? 6 * 3_600_000 : Math.min(Math.max(asked, 60_000), 86_400_000);
  return { start, end, askAgainAt: Date.now() + wait, ...(body.explanationURL ? { explanationUrl: body.explanationURL } : {}) };
}

/** The directory's `renewalInfo` URL; undefined when the CA has none. */
export async function renewalInfoUrl(http: HttpFn, directoryUrl: string): Promise<string | undefined> {
  const res = await http({ url: directoryUrl, headers: { accept: 'application/json' } });
  if (res.status !== 200) throw new MsgError({ key: 'acmeAriFailed', vars: { detail: `HTTP ${res.status} ${res.text.slice(0, 200)}` } });
  try {
    const url = (JSON.parse(res.text) as { renewalInfo?: unknown }).renewalInfo;
    return typeof url === 'string' && url ? url : undefined;
  } catch {
    throw new MsgError({ key: 'acmeAriFailed', vars: { detail: res.text.slice(0, 200) } });
  }
}

/** A time in the window, at random; a window already open (or past) means now. */
export function pickInWindow(w: Pick<RenewalWindow, 'start' | 'end'>, now = Date.now(), random = Math.random): number {
  if (w.end <= now) return now;
  const from = Math.max(w.start, now);
  return from + Math.floor(random() * (w.end - from));
}
