/** ACME account keys made by the module, one per CA directory and EAB key id, kept in lucky.db. */
import { renderMsg } from '@lucky/contracts';
import type { BackupPart } from '../../core/backupparts.js';
import type { Db, Migration } from '../../core/db.js';
import { upgradeStoredRules } from '../../core/rulestore.js';
import { msgOf } from '../../lib/msgerror.js';
import { accountKey, newAccountKeyPem } from './acme.jws.js';

export const acmeMigrations: Migration[] = [
  {
    version: 1,
    name: 'acme accounts',
    up: `CREATE TABLE acme_accounts (
      directory TEXT NOT NULL,
      eab_kid TEXT NOT NULL DEFAULT '',
      key_pem TEXT NOT NULL,
      url TEXT NOT NULL DEFAULT '',
      created_at INTEGER NOT NULL,
      PRIMARY KEY (directory, eab_kid)
    )`,
  },
  {
    version: 2,
    // The rule view's `key` (the rule's id) hid the pasted private key of the same name.
    name: 'pasted private key: key -> privateKey',
    up: (db) => void upgradeStoredRules(db, 'acme'),
  },
];

export class AcmeAccounts {
  constructor(private readonly db: Db) {}

  /** The key for a directory (made and kept on first use). */
  keyFor(directory: string, eabKid: string): string {
    const row = this.db
      .prepare<[string, string], { key_pem: string }>('SELECT key_pem FROM acme_accounts WHERE directory = ? AND eab_kid = ?')
      .get(directory, eabKid);
    if (row) return row.key_pem;
    const pem = newAccountKeyPem();
    this.db
      .prepare('INSERT INTO acme_accounts (directory, eab_kid, key_pem, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING')
      .run(directory, eabKid, pem, Date.now());
    return this.keyFor(directory, eabKid);
  }

  setUrl(directory: string, eabKid: string, url: string): void {
    this.db.prepare('UPDATE acme_accounts SET url = ? WHERE directory = ? AND eab_kid = ?').run(url, directory, eabKid);
  }
}

/** The account keys in a backup with secrets: a restored install renews with the same accounts. */
export function acmeAccountsPart(db: Db): BackupPart<'acmeAccounts'> {
  return {
    name: 'acmeAccounts',
    dump: () =>
      db
        .prepare<[], { directory: string; eab_kid: string; key_pem: string; url: string; created_at: number }>('SELECT * FROM acme_accounts ORDER BY directory, eab_kid')
        .all()
        .map((r) => ({ directory: r.directory, eabKid: r.eab_kid, key: r.key_pem, url: r.url, created: r.created_at })),
    check(row) {
      try {
        accountKey(row.key);
        return null;
      } catch (err) {
        return `${row.directory}: ${renderMsg('en_US', msgOf(err))}`;
      }
    },
    restore(rows) {
      const put = db.prepare(
        `INSERT INTO acme_accounts (directory, eab_kid, key_pem, url, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (directory, eab_kid) DO UPDATE SET key_pem = excluded.key_pem, url = excluded.url, created_at = excluded.created_at`,
      );
      for (const r of rows) put.run(r.directory, r.eabKid, r.key, r.url, r.created);
    },
  };
}
