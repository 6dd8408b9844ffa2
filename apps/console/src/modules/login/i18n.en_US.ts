/** The login page's own texts: English, the same keys as i18n.zh_CN.ts. */
import type { LoginTextId } from './i18n';

export const en_US: Record<LoginTextId, string> = {
  or: 'or',
  ssoButton: 'Sign in with {label}',
  ssoFinishing: 'Finishing single sign-on…',
};
