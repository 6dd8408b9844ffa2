/**
 * The uniform REST shape every module uses for its rules (ARCHITECTURE.md, "The API contract"):
 * GET/POST /api/<m>/rules, GET/PUT/DELETE /api/<m>/rules/:key, PUT .../enable, GET .../logs,
 * GET/PUT /api/<m>/configure.
 */
import { z } from 'zod';
import { ok, ZOk } from './envelope.js';
import { ZLogEntry } from './core.js';
import { route, type RouteDef } from './route.js';

export const ZRuleKey = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);
export const ZRuleParams = z.object({ key: ZRuleKey });

/**
 * What an engine says about a rule: `error` carries the reason (port in use, bad target...);
 * `waiting` the thing it starts on as soon as it is there (a certificate being ordered).
 */
export const ZRuleState = z.enum(['running', 'stopped', 'error', 'disabled', 'waiting']);
export const ZRuleStatus = z.object({
  state: ZRuleState,
  message: z.string(),
  since: z.number(),
});
export type RuleStatus = z.infer<typeof ZRuleStatus>;

/** Every rule input has at least a name and a switch. */
export type RuleInputShape = z.ZodObject<{ name: z.ZodType<string>; enable: z.ZodType<boolean> } & z.ZodRawShape>;

/**
 * The module and the object of it that made a rule in another module (a published service's web
 * rule): kept by the kit beside the rule, never part of a module's own schema. `name` is what the
 * console shows ("Publish: Home Assistant"); `key` is the object's key in its module.
 */
export const ZRuleOwner = z.object({ module: z.string().regex(/^[a-z][a-z0-9_]{0,31}$/), key: ZRuleKey, name: z.string().max(200) });
export type RuleOwner = z.infer<typeof ZRuleOwner>;

/**
 * `owner` is null for a rule the user made in its own module, and for a view of an older Lucky that
 * had no owners (the Wanji admin reads other devices' rules with these schemas).
 */
const viewFields = { key: ZRuleKey, status: ZRuleStatus, created: z.number(), updated: z.number(), owner: ZRuleOwner.nullable().default(null) };
/** The fields the kit adds to every rule's view. */
export const VIEW_FIELDS = Object.keys(viewFields) as Array<keyof typeof viewFields>;
export type ViewField = keyof typeof viewFields;

/**
 * The input fields a view would hide under its own (the kit's, or the module's `extra`). A client
 * that reads a rule, edits it and sends it back (scripts, the Wanji admin) would send the view's
 * value for such a field: a certificate's private key named `key` came back as the rule's id.
 * Nested fields are not concerned (a web rule's `certs[].key`): the view adds top-level fields only.
 */
type Hidden<S, X> = Extract<keyof S, ViewField | keyof X>;
/** Nothing when no field is hidden; else a property no schema has, so the call does not compile and says which. */
type NoHiddenFields<S, X> = [Hidden<S, X>] extends [never] ? unknown : { [K in `the rule view hides the input field ${Hidden<S, X> & string}`]: never };

/** The list item of a rule: its input fields, typed as they are, plus key, status, times, owner and `extra`. */
export function ruleView<S extends z.ZodRawShape, X extends z.ZodRawShape = {}>(input: z.ZodObject<S> & NoHiddenFields<S, X>, extra?: X) {
  // The same check at run time, for a schema whose type was widened past the one above.
  const hidden = Object.keys(input.shape).filter((k) => k in viewFields || (extra !== undefined && k in extra));
  if (hidden.length) throw new Error(`the rule view hides the input field(s) ${hidden.join(', ')}: rename them`);
  return input.extend({ ...viewFields, ...(extra ?? ({} as X)) } as typeof viewFields & X);
}

export function ruleRoutes<M extends string, I extends RuleInputShape, V extends z.ZodType, C extends z.ZodType>(
  module: M,
  schemas: { input: I; view: V; configure: C },
) {
  const base = `/api/${module}`;
  return {
    list: route({
      method: 'GET',
      path: `${base}/rules`,
      summary: `List ${module} rules with their status`,
      module,
      response: ok({ list: z.array(schemas.view) }),
    }),
    create: route({
      method: 'POST',
      path: `${base}/rules`,
      summary: `Create a ${module} rule; it starts at once when enabled`,
      module,
      body: schemas.input,
      response: ok({ key: ZRuleKey }),
    }),
    get: route({
      method: 'GET',
      path: `${base}/rules/:key`,
      summary: `One ${module} rule`,
      module,
      params: ZRuleParams,
      response: ok({ rule: schemas.view }),
    }),
    update: route({
      method: 'PUT',
      path: `${base}/rules/:key`,
      summary: `Replace a ${module} rule; applied at once`,
      module,
      params: ZRuleParams,
      body: schemas.input,
      response: ZOk,
    }),
    remove: route({
      method: 'DELETE',
      path: `${base}/rules/:key`,
      summary: `Delete a ${module} rule; a module may ask for confirm=1 first (a storage in use…)`,
      module,
      params: ZRuleParams,
      /** Deletes even what the module asks to confirm (its guardRemove); modules without one ignore it. */
      query: z.object({ confirm: z.enum(['0', '1', 'false', 'true']).default('0') }),
      response: ZOk,
    }),
    enable: route({
      method: 'PUT',
      path: `${base}/rules/:key/enable`,
      summary: `Switch a ${module} rule on or off`,
      module,
      params: ZRuleParams,
      body: z.object({ enable: z.boolean() }),
      response: ZOk,
    }),
    logs: route({
      method: 'GET',
      path: `${base}/rules/:key/logs`,
      summary: `A ${module} rule's log`,
      module,
      params: ZRuleParams,
      query: z.object({ pre: z.coerce.number().int().min(0).default(0) }),
      response: ok({ logs: z.array(ZLogEntry) }),
    }),
    getConfigure: route({
      method: 'GET',
      path: `${base}/configure`,
      summary: `${module} module settings`,
      module,
      response: ok({ configure: schemas.configure }),
    }),
    putConfigure: route({
      method: 'PUT',
      path: `${base}/configure`,
      summary: `Change ${module} module settings`,
      module,
      body: schemas.configure,
      response: ZOk,
    }),
  };
}

export type RuleRoutes<M extends string, I extends RuleInputShape, V extends z.ZodType, C extends z.ZodType> = ReturnType<typeof ruleRoutes<M, I, V, C>>;

/**
 * Everything a rule module's two sides share: its key, the schemas of a rule, of its list item and
 * of its settings, and its routes — the uniform rule routes plus the module's own (`extra`).
 */
export function moduleContract<
  const M extends string,
  I extends RuleInputShape,
  V extends z.ZodType,
  C extends z.ZodType,
  X extends Record<string, RouteDef> = {},
>(key: M, schemas: { input: I; view: V; configure: C; upgradeSettings?: SettingsUpgrade }, extra?: X) {
  return {
    key,
    rule: schemas.input,
    view: schemas.view,
    configure: schemas.configure,
    ...(schemas.upgradeSettings ? { upgradeSettings: schemas.upgradeSettings } : {}),
    routes: { ...ruleRoutes(key, schemas), ...(extra ?? ({} as X)) },
  };
}

/**
 * Brings settings saved by an earlier version (in lucky.db or a backup file) to what the schema
 * means now, before they are validated. Never applied to an API request: a client sending the
 * current shape means the current meaning.
 */
export type SettingsUpgrade = (stored: unknown) => unknown;

export interface ModuleContract<I extends RuleInputShape = RuleInputShape, C extends z.ZodType = z.ZodType> {
  key: string;
  rule: I;
  view: z.ZodType;
  configure: C;
  upgradeSettings?: SettingsUpgrade;
  routes: RuleRoutes<string, I, z.ZodType, C> & Record<string, RouteDef>;
}

/** The names of the uniform rule routes; a module's own routes are the others. */
export const RULE_ROUTE_NAMES = ['list', 'create', 'get', 'update', 'remove', 'enable', 'logs', 'getConfigure', 'putConfigure'] as const;
export type RuleRouteName = (typeof RULE_ROUTE_NAMES)[number];
