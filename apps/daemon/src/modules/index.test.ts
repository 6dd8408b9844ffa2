import { MODULES } from '@lucky/contracts';
import { describe, expect, it } from 'vitest';
import { MODULE_TABLE } from './index.js';

describe('the module table', () => {
  it('has each module once, all of them from the spec list', () => {
    const keys = MODULE_TABLE.map((m) => m.key);
    expect(new Set(keys).size).toBe(keys.length);
    for (const k of keys) expect(MODULES.map((m) => m.key)).toContain(k);
  });
  it('every module declares the schemas of what it stores, so backups can carry and check it', () => {
    for (const m of MODULE_TABLE) expect(m.data, m.key).toBeDefined();
  });
});
