/**
 * A route is declared once here and used by both sides: the daemon registers and validates it,
 * the console types its calls with it, and the OpenAPI document is generated from it.
 */
import type { z } from 'zod';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

export interface RouteDef {
  method: Method;
  /** Fastify-style path, `:name` for a parameter. */
  path: string;
  summary: string;
  /** Reachable without a session token. */
  public?: boolean;
  /** The module this route belongs to; its routes answer "module disabled" while it is off. */
  module?: string;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** The success body; failures are always `ZErr`. */
  response: z.ZodType;
  /** Not JSON in (uploads) or not JSON out (downloads); the body is not validated by schema. */
  raw?: 'upload' | 'download';
}

export function route<D extends RouteDef>(def: D): D {
  return def;
}

export type RouteParams<D> = D extends { params: infer P extends z.ZodType } ? z.infer<P> : undefined;
export type RouteQuery<D> = D extends { query: infer Q extends z.ZodType } ? z.infer<Q> : undefined;
export type RouteBody<D> = D extends { body: infer B extends z.ZodType } ? z.infer<B> : undefined;
export type RouteResponse<D> = D extends { response: infer S extends z.ZodType } ? z.infer<S> : never;

/** The request side of a route as a caller passes it: only the parts the route has. */
export type RouteInput<D> = (D extends { params: infer P extends z.ZodType } ? { params: z.input<P> } : {}) &
  (D extends { query: infer Q extends z.ZodType } ? { query: z.input<Q> } : {}) &
  (D extends { body: infer B extends z.ZodType } ? { body: z.input<B> } : {});

/** Fills `:name` parameters of a path. */
export function buildPath(path: string, params: Record<string, string | number> = {}): string {
  return path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(String(params[name] ?? '')));
}
