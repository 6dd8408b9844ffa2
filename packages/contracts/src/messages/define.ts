/**
 * One table of messages per area, both languages side by side: the English table must have exactly
 * the keys of the Chinese one (the compiler checks it, and i18n.test.ts checks the merged tables).
 */
export function defineMessages<const Z extends Record<string, string>>(zh: Z, en: { [K in keyof Z]: string }): { zh_CN: Z; en_US: { [K in keyof Z]: string } } {
  return { zh_CN: zh, en_US: en };
}
