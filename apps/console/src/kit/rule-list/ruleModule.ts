/**
 * What the kit knows of a rule module: its contract routes (the uniform set of contracts'
 * `ruleRoutes`), its queries, its texts and test ids. Row, input and settings types are read off
 * the routes, so a screen never restates them.
 */
import type { ModalProps } from '@mantine/core';
import type { RouteBody, RouteDef, RouteResponse, RuleOwner, RuleRouteName, RuleStatus } from '@lucky/contracts';
import type { RuleTexts } from '../texts';
import type { RuleQueries } from './ruleQueries';

/** The routes of contracts' `ruleRoutes(...)`, whatever the module's schemas. */
export type UniformRuleRoutes = Record<RuleRouteName, RouteDef>;

/** What every list item has (contracts' `ruleView`), whatever else the module adds. */
export interface RuleRow {
  key: string;
  name: string;
  enable: boolean;
  status: RuleStatus;
  /** The other module's object it was made for (a published service); null for the user's own. */
  owner: RuleOwner | null;
}

/** A list item: the rule's fields plus key, status, times and the module's extras. */
export type RuleViewOf<R extends UniformRuleRoutes> = RouteResponse<R['list']> extends { list: (infer V)[] } ? V & RuleRow : never;
/** The rule as create and update take it. */
export type RuleInputOf<R extends UniformRuleRoutes> = RouteBody<R['create']>;
/** The module settings as PUT …/configure takes them (the whole object). */
export type SettingsOf<R extends UniformRuleRoutes> = RouteBody<R['putConfigure']>;

/** The test ids of a rule screen; each is `<prefix>-<what>` unless a module's older name is kept. */
export function ruleTestIds(prefix: string, kept: Partial<Record<'logOpen' | 'formServerError', string>> = {}) {
  return {
    page: `${prefix}-page`,
    add: `${prefix}-add`,
    settingsOpen: `${prefix}-settings-open`,
    /** RuleTableCard adds `-empty` and `-table`. */
    list: prefix,
    row: `${prefix}-row`,
    rowName: `${prefix}-row-name`,
    status: `${prefix}-status`,
    statusMessage: `${prefix}-status-message`,
    /** The badge of a rule another module made (its owner). */
    owner: `${prefix}-owner`,
    toggle: `${prefix}-toggle`,
    logOpen: kept.logOpen ?? `${prefix}-log-open`,
    edit: `${prefix}-edit`,
    delete: `${prefix}-delete`,
    deleteConfirm: `${prefix}-delete-confirm`,
    /** The second question, when the daemon asks to confirm a delete (`confirmDelete`). */
    deleteAsked: `${prefix}-delete-asked`,
    deleteForce: `${prefix}-delete-force`,
    form: `${prefix}-form`,
    formError: `${prefix}-form-error`,
    formServerError: kept.formServerError ?? `${prefix}-form-server-error`,
    save: `${prefix}-save`,
    tab: (tab: string) => `${prefix}-tab-${tab}`,
    log: `${prefix}-log`,
    logText: `${prefix}-log-text`,
    logTab: (tab: string) => `${prefix}-log-tab-${tab}`,
    settings: `${prefix}-settings`,
    settingsError: `${prefix}-settings-error`,
    settingsServerError: `${prefix}-settings-server-error`,
    settingsSave: `${prefix}-settings-save`,
  };
}

export type RuleTestIds = ReturnType<typeof ruleTestIds>;

/** A module as the kit reaches it; `moduleNames` when the daemon's module list calls it otherwise. */
export function ruleModule<R extends UniformRuleRoutes>(module: string, routes: R, parts: Omit<RuleModule<R>, 'module' | 'routes'>): RuleModule<R> {
  return { module, routes, ...parts };
}

export interface RuleModule<R extends UniformRuleRoutes> {
  /** The module key: the "module disabled" notice names `module.<key>`. */
  module: string;
  /** Names under which the daemon's module list may report it (default: the key). */
  moduleNames?: readonly string[];
  routes: R;
  queries: RuleQueries<R>;
  text: RuleTexts;
  testIds: RuleTestIds;
  /** Where the kit's sizes do not fit the module's list and dialogs. */
  layout?: Partial<RuleLayout>;
  /**
   * The daemon may refuse a delete until it is confirmed (ret ≠ 0 with a message saying why): the
   * message is shown as a question, and confirming deletes with `?confirm=1`.
   */
  confirmDelete?: boolean;
}

export interface RuleLayout {
  /** The list scrolls sideways below this width. */
  minWidth: number;
  form: ModalProps['size'];
  log: ModalProps['size'];
  settings: ModalProps['size'];
}

export const DEFAULT_LAYOUT: RuleLayout = { minWidth: 900, form: 'xl', log: 1100, settings: 'lg' };
