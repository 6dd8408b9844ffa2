/**
 * The import boundaries of docs/ARCHITECTURE.md, read from the sources: modules talk to each other
 * only through services, the core stands on its own, and the environment is read in one place.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = dirname(fileURLToPath(import.meta.url));

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return files(p);
    return /\.tsx?$/.test(name) ? [p] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Imports that load code when run (not `import type`, not `export type`). */
const RUNTIME_IMPORT = /(?:^|\n)\s*(?:import|export)(?!\s+type\b)\b[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every relative import of a file, as a path below src/ ("core/ports.js"). */
function importsOf(file: string): Array<{ spec: string; target: string }> {
  const text = readFileSync(file, 'utf8');
  const out: Array<{ spec: string; target: string }> = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2]!;
    if (!spec.startsWith('.')) continue;
    out.push({ spec, target: relative(SRC, resolve(dirname(file), spec)).split(sep).join('/') });
  }
  return out;
}

const rel = (f: string) => relative(SRC, f).split(sep).join('/');
const production = (f: string) => !/\.test\.tsx?$/.test(f) && !rel(f).startsWith('test/') && !rel(f).includes('/testing/');

describe('import boundaries', () => {
  it('a module imports only contracts, core, lib and its own files', () => {
    const wrong: string[] = [];
    for (const f of files(join(SRC, 'modules'))) {
      const mod = rel(f).split('/')[1]!;
      if (mod.endsWith('.ts')) continue; // modules/index.ts, the table
      for (const { spec, target } of importsOf(f)) {
        const ok = target.startsWith(`modules/${mod}/`) || target.startsWith('core/') || target.startsWith('lib/') || (target.startsWith('test/') && !production(f));
        if (!ok) wrong.push(`${rel(f)} imports ${spec}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('core imports nothing from the modules, security, system or the daemon\'s own services', () => {
    const wrong = files(join(SRC, 'core'))
      .filter(production)
      .flatMap((f) => importsOf(f).filter((i) => !i.target.startsWith('core/') && !i.target.startsWith('lib/')).map((i) => `${rel(f)} imports ${i.spec}`));
    expect(wrong).toEqual([]);
  });

  it('lib imports only lib', () => {
    const wrong = files(join(SRC, 'lib'))
      .filter(production)
      .flatMap((f) => importsOf(f).filter((i) => !i.target.startsWith('lib/')).map((i) => `${rel(f)} imports ${i.spec}`));
    expect(wrong).toEqual([]);
  });

  it('a web serving thread loads no zod and no schemas (only @lucky/contracts/runtime)', () => {
    const packages = new Set<string>();
    const seen = new Set<string>();
    const walk = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const m of readFileSync(file, 'utf8').matchAll(RUNTIME_IMPORT)) {
        const spec = m[1] ?? m[2]!;
        if (spec.startsWith('.')) walk(resolve(dirname(file), spec).replace(/\.js$/, '.ts'));
        else packages.add(spec);
      }
    };
    walk(join(SRC, 'modules/web/web.worker.ts'));
    expect([...packages].filter((p) => !p.startsWith('node:')).sort()).toEqual(['@lucky/contracts/runtime']);
  });

  it('process.env is read only by the config loader (cli.ts)', () => {
    const readers = files(SRC)
      .filter(production)
      .filter((f) => /process\.env\b/.test(readFileSync(f, 'utf8').replace(/\/\/.*|\/\*[\s\S]*?\*\//g, '')))
      .map(rel);
    expect(readers).toEqual(['cli.ts']);
  });
});

