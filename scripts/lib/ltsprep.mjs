// Readies the pinned LTS Node for `npm test` in a process of its own, so that scripts/test.mjs can
// build the workspace meanwhile: fetches it (ltsnode.mjs) and builds better-sqlite3 for it
// (sqlitebinding.mjs). Its one line on stdout: the Node's facts as JSON, or null (the reason went
// to stderr). The daemon's own addons are built afterwards, once turbo has finished with dist/.
import { log } from './where.mjs';
import { ensureLtsNode } from './ltsnode.mjs';
import { ensureSqliteBinding } from './sqlitebinding.mjs';

let facts = ensureLtsNode();
if (facts) {
  try {
    ensureSqliteBinding({ node: facts.bin, facts, nodedir: facts.dir });
  } catch (err) {
    log(err.message);
    facts = null;
  }
}
process.stdout.write(`${JSON.stringify(facts)}\n`);
