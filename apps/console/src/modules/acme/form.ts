/** The certificate rule form: domains one a line, numbers as typed; checked with the contracts' own one-line message. */
import { ZAcmeRule, formatIssues, type AcmeRule } from '@lucky/contracts';
import { lang } from '../../i18n';
import type { FormProblem } from '../../kit/form/problems';
import { joinLines, toNumber, type Num } from '../../kit/form/values';
import { lines } from '../../lib/helpers';

export interface AcmeForm extends Omit<AcmeRule, 'domains' | 'httpPort' | 'dnsWait' | 'dnsServers' | 'dnsCheckTimeout' | 'renewBeforeDays'> {
  domains: string;
  httpPort: Num;
  dnsWait: Num;
  /** One a line. */
  dnsServers: string;
  dnsCheckTimeout: Num;
  renewBeforeDays: Num;
}

export const emptyForm = (): AcmeForm => ({
  name: '',
  enable: true,
  source: 'acme',
  cert: '',
  privateKey: '',
  certPath: '',
  keyPath: '',
  ca: 'letsencrypt',
  directoryUrl: '',
  caRoot: '',
  email: '',
  eabKid: '',
  eabHmac: '',
  accountKey: '',
  domains: '',
  keyType: 'ec256',
  challenge: 'http-01',
  httpAddress: '',
  httpPort: 80,
  dnsTask: '',
  dnsWait: 0,
  dnsCheck: true,
  dnsServers: '',
  dnsCheckTimeout: 300,
  renewBeforeDays: 30,
  note: '',
});

export const toForm = (r: AcmeRule): AcmeForm => ({ ...r, domains: joinLines(r.domains), dnsServers: joinLines(r.dnsServers) });

/** The rule as the API takes it; numbers stay NaN when not numbers so validation names the field. */
export function formToRule(f: AcmeForm): AcmeRule {
  return {
    ...f,
    name: f.name.trim(),
    domains: lines(f.domains).map((d) => d.toLowerCase()),
    certPath: f.certPath.trim(),
    keyPath: f.keyPath.trim(),
    directoryUrl: f.directoryUrl.trim(),
    email: f.email.trim(),
    eabKid: f.eabKid.trim(),
    httpAddress: f.httpAddress.trim(),
    httpPort: toNumber(f.httpPort),
    dnsWait: toNumber(f.dnsWait),
    dnsServers: lines(f.dnsServers),
    dnsCheckTimeout: toNumber(f.dnsCheckTimeout),
    renewBeforeDays: toNumber(f.renewBeforeDays),
  };
}

export function checkRule(f: AcmeForm, inLang = lang): FormProblem[] {
  const rule = formToRule(f);
  if (ZAcmeRule.safeParse(rule).success) return [];
  const summary = formatIssues(ZAcmeRule, rule, inLang);
  return [{ path: '', field: '', message: summary, inline: summary, summary }];
}
