/** HTTPS certificates of a listener (contracts' ZWebCert: web services, WebDAV) as a form holds them: domains one a line. */
import type { WebCert } from '@lucky/contracts';
import { lines } from '../../lib/helpers';
import { joinLines } from '../form/values';

export interface CertForm {
  source: WebCert['source'];
  cert: string;
  key: string;
  domains: string;
}

export const certToForm = (c: WebCert): CertForm => ({ source: c.source, cert: c.cert, key: c.key, domains: joinLines(c.domains) });
export const emptyCert = (): CertForm => ({ source: 'pem', cert: '', key: '', domains: '' });

/** Paths are trimmed; PEM text goes as pasted. */
export const certToBody = (c: CertForm): WebCert => ({
  source: c.source,
  cert: c.source === 'file' ? c.cert.trim() : c.cert,
  key: c.source === 'file' ? c.key.trim() : c.key,
  domains: lines(c.domains),
});
