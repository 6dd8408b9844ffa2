/** ACME account keys made by the module, one per CA directory and EAB key id, kept in lucky.db. */
import type { Db, Migration } from '../../core/db.js';
import { upgradeStoredRules } from '../../core/rulestore.js';
import { newAccountKeyPem } from './acme.jws.js';

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
