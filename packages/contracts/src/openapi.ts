/** Builds the OpenAPI 3.1 document from the route tables, so the document cannot drift from the code. */
import { z } from 'zod';
import { ZErr } from './envelope.js';
import type { RouteDef } from './route.js';

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): unknown {
  try {
    return z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'openapi-3.0' });
  } catch {
    return {};
  }
}

function parameters(def: RouteDef): unknown[] {
  const out: unknown[] = [];
  for (const [where, schema] of [
    ['path', def.params],
    ['query', def.query],
  ] as const) {
    if (!schema) continue;
    const js = jsonSchema(schema, 'input') as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, s] of Object.entries(js.properties ?? {})) {
      out.push({ name, in: where, required: where === 'path' || (js.required ?? []).includes(name), schema: s });
    }
  }
  return out;
}

export function buildOpenApi(tables: Record<string, Record<string, RouteDef>>, version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [tag, table] of Object.entries(tables)) {
    for (const [id, def] of Object.entries(table)) {
      const path = def.path.replace(/:(\w+)/g, '{$1}');
      const op: Record<string, unknown> = {
        operationId: `${tag}.${id}`,
        tags: [tag],
        summary: def.summary,
        parameters: parameters(def),
        responses: {
          200: {
            description: 'Success `{ret: 0, ...}` or failure `{ret: non-zero, msg}`',
            content: {
              'application/json': {
                schema: { oneOf: [jsonSchema(def.response, 'output'), jsonSchema(ZErr, 'output')] },
              },
            },
          },
        },
      };
      if (def.public) op.security = [];
      if (def.body && !def.raw) {
        op.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(def.body, 'input') } } };
      }
      if (def.raw === 'upload') {
        op.requestBody = { content: { 'multipart/form-data': { schema: { type: 'object' } } } };
      }
      (paths[path] ??= {})[def.method.toLowerCase()] = op;
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Lucky API', version },
    components: {
      securitySchemes: { adminToken: { type: 'apiKey', in: 'header', name: 'lucky-admin-token' } },
    },
    security: [{ adminToken: [] }],
    paths,
  };
}
