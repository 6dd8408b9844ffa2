/**
 * The certificate store, a table of lucky.db with migrations of its own: named certificates with
 * their private keys, each checked before it is kept (a PEM certificate, a PEM key, the key of that
 * certificate). Listeners hear of every change so that a renewed certificate reaches running rules.
 */
import { ACME_NAME_RE } from '@lucky/contracts';
import type { BackupPart } from '../core/backupparts.js';
import type { Db, Migration } from '../core/db.js';
import { migrate } from '../core/db.js';
import type { Say } from '../core/logs.js';
import type { CertificatesService, StoredCertificate } from '../core/services/certificates.js';
import { serverTls } from '../lib/tls/contexts.js';
import { checkPair, readCertSources, TlsError, type CertFacts, type CertSource } from '../lib/tls/pem.js';

const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'certificate store',
    up: `CREATE TABLE certificates (
      name TEXT PRIMARY KEY,
      cert TEXT NOT NULL,
      key TEXT NOT NULL,
      facts TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );`,
  },
];

interface Row {
  name: string;
  cert: string;
  key: string;
  facts: string;
  created_at: number;
  updated_at: number;
}

function info(r: Row): StoredCertificate {
  return { name: r.name, ...(JSON.parse(r.facts) as CertFacts), created: r.created_at, updated: r.updated_at };
}

export function openCertificates(db: Db, say?: Say): CertificatesService {
  migrate(db, 'certificates', MIGRATIONS);
  const listeners = new Set<(name: string, now: StoredCertificate | null) => void>();
  const one = db.prepare<[string], Row>('SELECT * FROM certificates WHERE name = ?');
  const all = db.prepare<[], Row>('SELECT * FROM certificates ORDER BY name');
  const upsert = db.prepare(
    `INSERT INTO certificates (name, cert, key, facts, created_at, updated_at) VALUES (@name, @cert, @key, @facts, @now, @now)
     ON CONFLICT (name) DO UPDATE SET cert = excluded.cert, key = excluded.key, facts = excluded.facts, updated_at = excluded.updated_at`,
  );
  const del = db.prepare('DELETE FROM certificates WHERE name = ?');

  const changed = (name: string, now: StoredCertificate | null) => {
    for (const fn of [...listeners]) {
      try {
        fn(name, now);
      } catch (err) {
        // One listener's fault must not keep the others from hearing of the change.
        say?.error({ key: 'certListenerFailed', vars: { name, detail: String((err as Error)?.message ?? err) } });
      }
    }
  };

  /** Certificates of the store named by a rule, as the PEM texts they hold now; a missing one stays (read errors say which). */
  const fromStore = (certs: readonly CertSource[]): CertSource[] =>
    certs.map((c) => {
      if (c.source !== 'store') return c;
      const r = one.get(c.cert);
      return r ? { source: 'pem', cert: r.cert, key: r.key, domains: c.domains } : c;
    });

  return {
    list: () => all.all().map(info),
    get(name) {
      const r = one.get(name);
      return r ? { ...info(r), cert: r.cert, key: r.key } : undefined;
    },
    put(name, cert, key) {
      if (!ACME_NAME_RE.test(name)) throw new TlsError({ key: 'certBadName' });
      const facts = checkPair(cert, key);
      upsert.run({ name, cert, key, facts: JSON.stringify(facts), now: Date.now() });
      const now = info(one.get(name)!);
      changed(name, now);
      return now;
    },
    remove(name) {
      const gone = del.run(name).changes > 0;
      if (gone) changed(name, null);
      return gone;
    },
    onChange(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    check: checkPair,
    resolve: (certs) => readCertSources(fromStore(certs)),
    serverTls: async (certs, minTls) => serverTls(await readCertSources(fromStore(certs)), minTls),
  };
}

/**
 * The store in a backup with secrets: every certificate with its key, restored as it was (its
 * times too), so a new install serves the same certificates and renews them when they are due.
 */
export function certificateStorePart(db: Db): BackupPart<'certificates'> {
  migrate(db, 'certificates', MIGRATIONS);
  return {
    name: 'certificates',
    dump: () =>
      db
        .prepare<[], Row>('SELECT * FROM certificates ORDER BY name')
        .all()
        .map((r) => ({ name: r.name, cert: r.cert, key: r.key, created: r.created_at, updated: r.updated_at })),
    check(row) {
      if (!ACME_NAME_RE.test(row.name)) return `${row.name}: not a certificate name`;
      try {
        checkPair(row.cert, row.key);
        return null;
      } catch (err) {
        return `${row.name}: ${(err as Error).message}`;
      }
    },
    restore(rows) {
      const put = db.prepare(
        `INSERT INTO certificates (name, cert, key, facts, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET cert = excluded.cert, key = excluded.key, facts = excluded.facts, created_at = excluded.created_at, updated_at = excluded.updated_at`,
      );
      for (const r of rows) put.run(r.name, r.cert, r.key, JSON.stringify(checkPair(r.cert, r.key)), r.created, r.updated);
    },
  };
}
