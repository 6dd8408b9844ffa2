import { NativeSelect } from '@mantine/core';
import type { Lang } from '@lucky/contracts';
import { lang, switchLang, shellText } from '../i18n';

/** English / 中文 (spec section 4): saved, then the page reloads. A native select keeps the login page light. */
export const LANG_OPTIONS: { value: Lang; label: string }[] = [
  { value: 'en_US', label: 'English' },
  { value: 'zh_CN', label: '中文' },
];

export function LangSwitch() {
  return (
    <NativeSelect
      aria-label={shellText('shell.language')}
      data={LANG_OPTIONS}
      value={lang}
      onChange={(e) => switchLang(e.currentTarget.value as Lang)}
      data-testid="lang-switch"
      size="sm"
      w={110}
    />
  );
}
