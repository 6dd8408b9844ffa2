/**
 * A small PKI with a real OCSP responder, on loopback, for the stapling tests: a CA, a delegated
 * responder certificate (OCSPSigning) it issued, leaf certificates whose authorityInfoAccess names
 * the responder (or names none), an index where one of them is revoked, and `openssl ocsp` answering
 * from that index. The HTTP side is a loopback server of the test's that keeps every request's body
 * (it can be told to fail) and has `openssl ocsp -reqin ... -respout ...` answer each one: the
 * OpenSSL 3.0 `openssl ocsp -port` takes no address and would listen on every interface.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface OcspLeaf {
  /** The leaf and the CA after it, as a rule's certificate carries its chain. */
  cert: string;
  key: string;
  /** The leaf alone, and its file. */
  leafPem: string;
  leafFile: string;
  serial: Buffer;
}

export interface OcspPki {
  dir: string;
  caFile: string;
  /** The responder's URL as the leaves name it (the counting front). */
  url: string;
  good: OcspLeaf;
  revoked: OcspLeaf;
  /** No authorityInfoAccess: nothing to ask. */
  plain: OcspLeaf;
  /** Bodies of the requests the front received. */
  requests: Buffer[];
  /** While set, the front answers 503 without asking the responder. */
  failing: boolean;
  /** What `openssl ocsp` says of a stapled answer for a leaf: 'good', 'revoked'... or why it is not valid. */
  verdict(der: Buffer, leaf: OcspLeaf): string;
  close(): Promise<void>;
}

const openssl = (args: string[], cwd: string) => execFileSync('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], timeout: 20_000 }).toString();

const listenLoopback = (server: Server) => new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as { port: number }).port)));

/** `openssl ca` index dates: YYMMDDHHMMSSZ. */
function indexDate(d: Date): string {
  return d.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z';
}

/** The CA, the responder's certificate, the leaves and the index, as files in `dir`. */
function makeLeaves(dir: string, url: string): { good: OcspLeaf; revoked: OcspLeaf; plain: OcspLeaf } {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=Lucky Test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'], dir);
  const issue = (name: string, ext: string) => {
    writeFileSync(join(dir, `${name}.ext`), ext);
    openssl(['req', '-new', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`], dir);
    openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-extfile', `${name}.ext`, '-out', `${name}.crt`], dir);
  };
  issue('responder', 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=OCSPSigning\n');
  const aia = `authorityInfoAccess=OCSP;URI:${url}\n`;
  issue('good.test', `subjectAltName=DNS:good.test\n${aia}`);
  issue('revoked.test', `subjectAltName=DNS:revoked.test\n${aia}`);
  issue('plain.test', 'subjectAltName=DNS:plain.test\n');
  const caPem = readFileSync(join(dir, 'ca.crt'), 'utf8');
  const leaf = (name: string): OcspLeaf => {
    const leafPem = readFileSync(join(dir, `${name}.crt`), 'utf8');
    const serial = openssl(['x509', '-in', `${name}.crt`, '-noout', '-serial'], dir).trim().replace(/^serial=/, '');
    return { cert: leafPem + caPem, key: readFileSync(join(dir, `${name}.key`), 'utf8'), leafPem, leafFile: join(dir, `${name}.crt`), serial: Buffer.from(serial.length % 2 ? `0${serial}` : serial, 'hex') };
  };
  const good = leaf('good.test');
  const revoked = leaf('revoked.test');
  const plain = leaf('plain.test');
  const expiry = indexDate(new Date(Date.now() + 2 * 86_400_000));
  const line = (status: string, l: OcspLeaf, name: string, revokedAt = '') => `${status}\t${expiry}\t${revokedAt}\t${l.serial.toString('hex').toUpperCase()}\tunknown\t/CN=${name}\n`;
  writeFileSync(join(dir, 'index.txt'), line('V', good, 'good.test') + line('R', revoked, 'revoked.test', indexDate(new Date(Date.now() - 3600_000))) + line('V', plain, 'plain.test'));
  return { good, revoked, plain };
}

export async function startOcspPki(): Promise<OcspPki> {
  const dir = mkdtempSync(join(tmpdir(), 'lucky-ocsp-'));
  const requests: Buffer[] = [];
  const pki = { failing: false, closed: false };
  let asked = 0;
  const front = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (pki.closed) return void res.destroy();
      requests.push(body);
      if (pki.failing || req.method !== 'POST' || req.headers['content-type'] !== 'application/ocsp-request') return void res.writeHead(503).end();
      const n = ++asked;
      writeFileSync(join(dir, `request-${n}.der`), body);
      // Answers valid for five minutes (nextUpdate), signed by the delegated responder.
      const args = ['ocsp', '-index', 'index.txt', '-rsigner', 'responder.crt', '-rkey', 'responder.key', '-CA', 'ca.crt', '-nmin', '5'];
      execFile('openssl', [...args, '-reqin', `request-${n}.der`, '-respout', `response-${n}.der`], { cwd: dir, timeout: 10_000 }, (err) => {
        if (err || pki.closed) return void res.writeHead(500).end();
        res.writeHead(200, { 'content-type': 'application/ocsp-response' }).end(readFileSync(join(dir, `response-${n}.der`)));
      });
    });
  });
  const frontPort = await listenLoopback(front);
  const url = `http://127.0.0.1:${frontPort}/`;

  let leaves: { good: OcspLeaf; revoked: OcspLeaf; plain: OcspLeaf };
  try {
    leaves = makeLeaves(dir, url);
  } catch (err) {
    await new Promise((r) => front.close(r));
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const { good, revoked, plain } = leaves;

  let n = 0;
  return {
    dir,
    caFile: join(dir, 'ca.crt'),
    url,
    good,
    revoked,
    plain,
    requests,
    get failing() {
      return pki.failing;
    },
    set failing(v: boolean) {
      pki.failing = v;
    },
    verdict(der, l) {
      const file = join(dir, `answer-${++n}.der`);
      writeFileSync(file, der);
      try {
        const out = openssl(['ocsp', '-respin', file, '-issuer', 'ca.crt', '-cert', l.leafFile, '-CAfile', 'ca.crt', '-no_nonce'], dir);
        return /: (good|revoked|unknown)\b/.exec(out)?.[1] ?? out;
      } catch (err) {
        return `invalid: ${String((err as { stderr?: Buffer }).stderr ?? err)}`;
      }
    },
    close: async () => {
      pki.closed = true;
      front.closeAllConnections();
      await new Promise((r) => front.close(r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
