/**
 * The few runtime helpers a web serving thread needs (message texts, address checks), without zod,
 * the module schemas and the route table that `@lucky/contracts` evaluates on import (about 10 MB of
 * heap, which each thread would otherwise carry).
 */
export { message, msg, parseLang, renderMsg, renderMsgs, MESSAGES, LANGS, type Lang, type MessageKey, type Msg, type MsgValue } from './messages.js';
export { isIP, isIPv4, isIPv6 } from './ip.js';
export { WEB_DURATION_BUCKETS } from './webbuckets.js';
export { PORTAL_COOKIE, PORTAL_FORM_COOKIE, PORTAL_PATH } from './portalnames.js';
