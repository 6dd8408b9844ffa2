/**
 * Registers a contract route: parses params, query and body with its zod schemas in the caller's
 * language, hands the handler typed values, and (in tests) checks the answer against the schema.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { Ret, formatIssues, type Lang, type RouteDef } from '@lucky/contracts';
import { AppError } from './envelope.js';

type In<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface Ctx<D extends RouteDef> {
  params: In<D['params']>;
  query: In<D['query']>;
  body: In<D['body']>;
  req: FastifyRequest;
  reply: FastifyReply;
}

/** Success bodies may leave out `ret`: it is added here. */
type Answer<D extends RouteDef> = Omit<z.input<D['response']>, 'ret'> & { ret?: 0 };

export type Handler<D extends RouteDef> = (ctx: Ctx<D>) => Promise<Answer<D> | FastifyReply> | Answer<D> | FastifyReply;

declare module 'fastify' {
  interface FastifyContextConfig {
    route?: RouteDef;
  }
}

/** Set in tests: every answer must match its contract, or the test fails loudly. */
let checkResponses = false;
export function setResponseChecking(on: boolean): void {
  checkResponses = on;
}

/** The value as the schema makes it, or a ret 1 that names the first bad field in `lang`. */
export function parseOrFail<S extends z.ZodType>(schema: S, value: unknown, lang: Lang): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw new AppError(Ret.badRequest, null, {}, formatIssues(schema, value, lang));
}

function parsePart(schema: z.ZodType | undefined, value: unknown, req: FastifyRequest): unknown {
  return schema ? parseOrFail(schema, value, req.lang) : undefined;
}

export interface RouteOptions {
  /** The handler gets the body as sent and validates it itself (masks of secrets are replaced first). */
  rawBody?: boolean;
}

export function addRoute<D extends RouteDef>(app: FastifyInstance, def: D, handler: Handler<D>, opts: RouteOptions = {}): void {
  app.route({
    method: def.method,
    url: def.path,
    config: { route: def },
    handler: async (req, reply) => {
      const ctx = {
        params: parsePart(def.params, req.params, req),
        query: parsePart(def.query, req.query, req),
        body: def.raw === 'upload' ? undefined : opts.rawBody ? req.body : parsePart(def.body, req.body, req),
        req,
        reply,
      } as Ctx<D>;
      const out = await handler(ctx);
      if ((out as unknown) === reply || reply.sent) return reply;
      const body = { ret: 0, ...(out as object) };
      if (checkResponses && def.raw !== 'download') {
        const r = def.response.safeParse(body);
        if (!r.success) throw new Error(`response of ${def.method} ${def.path} breaks its contract: ${r.error.message}`);
      }
      return body;
    },
  });
}
