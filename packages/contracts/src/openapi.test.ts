import { describe, expect, it } from 'vitest';
import { API } from './index.js';
import { buildOpenApi } from './openapi.js';

describe('OpenAPI document', () => {
  it('lists every route of every table with its method', () => {
    const doc = buildOpenApi(API, 'test') as { paths: Record<string, Record<string, { operationId: string; requestBody?: unknown }>> };
    let count = 0;
    for (const table of Object.values(API)) {
      for (const def of Object.values(table)) {
        const op = doc.paths[def.path.replace(/:(\w+)/g, '{$1}')]?.[def.method.toLowerCase()];
        expect(op, `${def.method} ${def.path}`).toBeDefined();
        if (def.body && !def.raw) expect(op!.requestBody, def.path).toBeDefined();
        count++;
      }
    }
    expect(count).toBeGreaterThan(30);
    expect(doc.paths['/api/login']?.post?.operationId).toBe('core.login');
  });
  it('has no two routes with the same method and path', () => {
    const seen = new Set<string>();
    for (const table of Object.values(API)) {
      for (const def of Object.values(table)) {
        const k = `${def.method} ${def.path}`;
        expect(seen.has(k), k).toBe(false);
        seen.add(k);
      }
    }
  });
});
