/**
 * Certificates of a TLS listener as a form holds them (domains one a line). Every listener takes
 * PEM text, files or a certificate of the store (contracts' ZTlsCert: WebDAV, FTPS); a web rule's
 * may also be automatic (ZWebCert `auto`: ordered for the rule by the certificates module).
 */
import type { TlsCertInput, WebCert } from '@lucky/contracts';
import { lines } from '../../lib/helpers';
import { joinLines } from '../form/values';

export type CertSource = WebCert['source'];
export type TlsCertSource = TlsCertInput['source'];

/** The sources each kind of listener offers, in the editor's order (the first is a new entry's). */
export const TLS_CERT_SOURCES = ['pem', 'file', 'store'] as const satisfies readonly TlsCertSource[];
export const WEB_CERT_SOURCES = [...TLS_CERT_SOURCES, 'auto'] as const satisfies readonly CertSource[];

/** One form for every source, so switching source keeps what was typed; `S` narrows it to a listener's sources. */
export interface CertForm<S extends CertSource = CertSource> {
  source: S;
  cert: string;
  key: string;
  domains: string;
  /** `auto` only: how the CA checks the names, and the DDNS task that writes DNS-01's records. */
  challenge: WebCert['challenge'];
  dnsTask: string;
}

export function certToForm<S extends CertSource>(c: { source: S; cert: string; key: string; domains: string[]; challenge?: WebCert['challenge']; dnsTask?: string }): CertForm<S> {
  return { source: c.source, cert: c.cert, key: c.key, domains: joinLines(c.domains), challenge: c.challenge ?? 'http-01', dnsTask: c.dnsTask ?? '' };
}

export const emptyCert = <S extends CertSource>(source: S): CertForm<S> => ({ source, cert: '', key: '', domains: '', challenge: 'http-01', dnsTask: '' });

/** Paths are trimmed; PEM text goes as pasted. */
export const tlsCertToBody = (c: CertForm<TlsCertSource>): TlsCertInput => ({
  source: c.source,
  cert: c.source === 'file' ? c.cert.trim() : c.cert,
  key: c.source === 'file' ? c.key.trim() : c.key,
  domains: lines(c.domains),
});

/**
 * A web rule's certificate. An automatic one sends its names and challenge only (no certificate
 * or key: the store's, once ordered), its DDNS task with DNS-01 alone; the others leave the
 * challenge at the contract's defaults.
 */
export function certToBody(c: CertForm): WebCert {
  if (c.source === 'auto') {
    return { source: 'auto', cert: '', key: '', domains: lines(c.domains), challenge: c.challenge, dnsTask: c.challenge === 'dns-01' ? c.dnsTask : '' };
  }
  return { ...tlsCertToBody({ ...c, source: c.source }), challenge: 'http-01', dnsTask: '' };
}
