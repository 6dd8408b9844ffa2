import { MODULE_CONTRACTS, MODULES, VIEW_FIELDS, type ModuleContract } from '@lucky/contracts';
import { describe, expect, it } from 'vitest';
import { MODULE_TABLE } from './index.js';

describe('the module table', () => {
  it('has each module once, all of them from the spec list', () => {
    const keys = MODULE_TABLE.map((m) => m.key);
    expect(new Set(keys).size).toBe(keys.length);
    for (const k of keys) expect(MODULES.map((m) => m.key)).toContain(k);
  });
  it('every module declares the schemas of what it stores, so backups can carry and check it', () => {
    for (const m of MODULE_TABLE) expect('load' in m ? MODULE_CONTRACTS[m.key] : m.data, m.key).toBeDefined();
  });
  it('every module on the kit loads as the module its entry names, with the services its entry says it provides and the stores it says it keeps', async () => {
    for (const m of MODULE_TABLE) {
      if (!('load' in m)) continue;
      const spec = (await m.load()).default;
      expect(spec.key).toBe(m.key);
      expect(spec.contract).toBe(MODULE_CONTRACTS[m.key]);
      expect(Object.keys(spec.services?.provides ?? {}).sort()).toEqual([...(m.provides ?? [])].sort());
      // A store beside the rules that backups carry is named in the table, so a backup loads only those modules.
      expect(!!spec.backup, m.key).toBe(!!m.keeps?.length);
    }
    expect(MODULE_TABLE.flatMap((m) => m.keeps ?? [])).toEqual(['acmeAccounts']);
  });
  it("no module's rule has an input field its view hides under its own (key, status, created, updated)", async () => {
    for (const m of MODULE_TABLE) {
      const contract: ModuleContract = (await m.load()).default.contract;
      const input = Object.keys(contract.rule.shape);
      expect(input.filter((k) => (VIEW_FIELDS as string[]).includes(k)), m.key).toEqual([]);
      // The view carries every input field under its own name, and the kit's fields over them.
      const view = (contract.view as unknown as { shape: Record<string, unknown> }).shape;
      for (const k of input) expect(view[k], `${m.key}.${k}`).toBeDefined();
      for (const k of VIEW_FIELDS) expect(view[k], `${m.key} view ${k}`).toBeDefined();
    }
  });
});
