/**
 * The login portal's names on the wire, without zod: web serving threads read them through
 * `@lucky/contracts/runtime`.
 */
/** The cookie every portal session rides on. */
export const PORTAL_COOKIE = 'lucky_portal';
/** The login form's anti-forgery cookie (double submit: the form carries the same value). */
export const PORTAL_FORM_COOKIE = 'lucky_portal_form';
/** Where a protected rule answers the portal's own pages: `login` (form and its POST), `logout`. */
export const PORTAL_PATH = '/.lucky/';
