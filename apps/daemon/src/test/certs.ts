/**
 * Real certificates for tests, made by openssl: self-signed EC certificates for given names, valid
 * from now for some days, or expired (signed with dates in the past through `openssl ca`).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestCert {
  cert: string;
  key: string;
  certFile: string;
  keyFile: string;
}

const run = (args: string[], cwd?: string) => execFileSync('openssl', args, { stdio: 'ignore', timeout: 20_000, ...(cwd ? { cwd } : {}) });

/** A certificate for `names` (the first is the common name) and its key, as PEM text and files in `dir`. */
export function makeCert(dir: string, file: string, names: string[], o: { days?: number; expired?: boolean } = {}): TestCert {
  const keyFile = join(dir, `${file}.key`);
  const certFile = join(dir, `${file}.crt`);
  const subject = ['-subj', `/CN=${names[0]}`, '-addext', `subjectAltName=${names.map((n) => `DNS:${n}`).join(',')}`];
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile];
  if (!o.expired) {
    run(['req', '-x509', ...newKey, '-days', String(o.days ?? 2), ...subject, '-out', certFile]);
  } else {
    // `req -x509` cannot date a certificate in the past; a throwaway CA database can.
    const ca = mkdtempSync(join(dir, 'ca-'));
    writeFileSync(join(ca, 'index.txt'), '');
    writeFileSync(join(ca, 'serial'), '01\n');
    writeFileSync(
      join(ca, 'ca.cnf'),
      '[ca]\ndefault_ca = d\n[d]\ndatabase = index.txt\nnew_certs_dir = .\nserial = serial\ndefault_md = sha256\npolicy = p\ncopy_extensions = copy\nunique_subject = no\n[p]\ncommonName = supplied\n',
    );
    run(['req', '-new', ...newKey, ...subject, '-out', join(ca, 'csr.pem')]);
    run(['ca', '-batch', '-notext', '-config', 'ca.cnf', '-selfsign', '-keyfile', keyFile, '-in', 'csr.pem', '-startdate', '20200101000000Z', '-enddate', '20200201000000Z', '-out', certFile], ca);
  }
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), certFile, keyFile };
}
