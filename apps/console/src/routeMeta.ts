/** What each route carries in `staticData` (kept apart from routes.tsx so screens can read it without a cycle). */
import type { MessageId } from './i18n';

export interface RouteMeta {
  /** Page title `Lucky | {title}`. */
  title?: MessageId;
  /** The module key (contracts' MODULES) whose screen this is. */
  module?: string;
}

export function routeMeta(staticData: unknown): RouteMeta {
  return (staticData ?? {}) as RouteMeta;
}
