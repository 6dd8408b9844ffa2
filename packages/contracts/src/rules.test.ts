/**
 * A rule view never hides an input field: at compile time (a module whose rule has a field the view
 * adds itself does not compile, checked by running the real compiler on two small modules) and
 * when the contract is made. Also the renames that read rules saved under old field names.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MODULE_CONTRACTS } from './index.js';
import { ruleView, VIEW_FIELDS, ZRuleOwner } from './rules.js';
import { RENAMED_RULE_FIELDS, upgradeRuleData } from './upgrades.js';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

describe('the rule view', () => {
  it('adds key, status, the times and the owner', () => {
    expect(VIEW_FIELDS).toEqual(['key', 'status', 'created', 'updated', 'owner']);
  });

  it('refuses, when the contract is made, an input field it would hide', () => {
    const base = { name: z.string(), enable: z.boolean() };
    for (const field of VIEW_FIELDS) {
      expect(() => ruleView(z.object({ ...base, [field]: z.string() }) as never), field).toThrow(`the rule view hides the input field(s) ${field}`);
    }
    expect(() => ruleView(z.object({ ...base, url: z.string() }) as never, { url: z.string() })).toThrow('hides the input field(s) url');
    expect(Object.keys(ruleView(z.object({ ...base, privateKey: z.string() }), { url: z.string() }).shape)).toEqual(['name', 'enable', 'privateKey', 'key', 'status', 'created', 'updated', 'owner', 'url']);
  });

  it('no module contract has an input field its view hides', () => {
    for (const [module, c] of Object.entries(MODULE_CONTRACTS)) {
      const input = Object.keys(c!.rule.shape);
      expect(input.filter((k) => (VIEW_FIELDS as string[]).includes(k)), module).toEqual([]);
      // Every module's view carries the kit's owner, whatever its own extra fields.
      expect((c!.view as z.ZodObject<z.ZodRawShape>).shape.owner, module).toBeDefined();
    }
  });

  it('reads an owner, or null for the user\'s own rule', () => {
    const view = ruleView(z.object({ name: z.string(), enable: z.boolean() }));
    const rule = { name: 'ha', enable: true, key: 'k1', status: { state: 'running', message: '', since: 0 }, created: 1, updated: 1 };
    expect(view.parse({ ...rule, owner: { module: 'publish', key: 'svc1', name: 'Home Assistant' } }).owner).toEqual({ module: 'publish', key: 'svc1', name: 'Home Assistant' });
    expect(view.parse({ ...rule, owner: null }).owner).toBeNull();
    // A view of an older Lucky, as the Wanji admin reads other devices'.
    expect(view.parse(rule).owner).toBeNull();
    expect(ZRuleOwner.safeParse({ module: 'Publish', key: 'svc1', name: 'x' }).success).toBe(false);
  });

  it('does not compile with an input field named as one of its own or of its extra fields', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lucky-ruleview-'));
    try {
      const rules = join(here, 'rules.js');
      const fixture = [
        "import { z } from 'zod';",
        `import { ruleView } from ${JSON.stringify(rules)};`,
        'const base = { name: z.string(), enable: z.boolean() };',
        'export const fine = ruleView(z.object({ ...base, privateKey: z.string() }), { url: z.string() });',
        'export const hidesKey = ruleView(z.object({ ...base, key: z.string() }));',
        'export const hidesStatus = ruleView(z.object({ ...base, status: z.number() }));',
        'export const hidesOwner = ruleView(z.object({ ...base, owner: z.string() }));',
        'export const hidesExtra = ruleView(z.object({ ...base, url: z.string() }), { url: z.string() });',
        '',
      ].join('\n');
      writeFileSync(join(dir, 'fixture.ts'), fixture);
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            noEmit: true,
            target: 'ES2022',
            module: 'ESNext',
            moduleResolution: 'Bundler',
            lib: ['ES2023', 'DOM'],
            types: [],
            skipLibCheck: true,
            // The fixture lives outside the package: zod is the package's own.
            paths: { zod: [dirname(require.resolve('zod/package.json'))] },
          },
          files: ['fixture.ts'],
        }),
      );
      const tsc = require.resolve('typescript/bin/tsc');
      const r = spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json'), '--pretty', 'false'], { encoding: 'utf8', timeout: 120_000 });
      const errors = r.stdout.split('\n').filter((l) => l.includes('error TS'));
      const lineOf = (name: string) => fixture.split('\n').findIndex((l) => l.includes(`const ${name} `)) + 1;
      const at = (line: number) => errors.filter((e) => e.includes(`fixture.ts(${line},`));
      expect(r.status, r.stdout + r.stderr).not.toBe(0);
      expect(at(lineOf('fine')), errors.join('\n')).toEqual([]);
      expect(at(lineOf('hidesKey')).join('\n')).toContain('the rule view hides the input field key');
      expect(at(lineOf('hidesStatus')).join('\n')).toContain('the rule view hides the input field status');
      expect(at(lineOf('hidesOwner')).join('\n')).toContain('the rule view hides the input field owner');
      expect(at(lineOf('hidesExtra')).join('\n')).toContain('the rule view hides the input field url');
      expect(errors, errors.join('\n')).toHaveLength(4);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('rules saved under old field names', () => {
  it("read a pasted certificate's key as privateKey, once", () => {
    expect(RENAMED_RULE_FIELDS.acme).toEqual({ key: 'privateKey' });
    const old = { name: 'site', source: 'pem', cert: 'C', key: 'K' };
    const now = upgradeRuleData('acme', old);
    expect(now).toEqual({ name: 'site', source: 'pem', cert: 'C', privateKey: 'K' });
    expect(upgradeRuleData('acme', now)).toBe(now);
    // Where both are there (never written so), the new name wins and the old one goes.
    expect(upgradeRuleData('acme', { ...old, privateKey: 'P' })).toEqual({ name: 'site', source: 'pem', cert: 'C', privateKey: 'P' });
  });

  it('leave other modules and what is not a rule as they are', () => {
    const web = { name: 'w', certs: [{ source: 'pem', cert: 'C', key: 'K' }], key: 'x' };
    expect(upgradeRuleData('web', web)).toBe(web);
    for (const v of [null, 'text', [1], 3]) expect(upgradeRuleData('acme', v)).toBe(v);
  });
});
