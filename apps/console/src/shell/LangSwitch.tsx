import { Button, Menu } from '@mantine/core';
import type { Lang } from '@lucky/contracts';
import { lang, switchLang, t } from '../i18n';

/** English / 中文 (spec section 4): saved, then the page reloads. */
export const LANG_OPTIONS: { value: Lang; label: string }[] = [
  { value: 'en_US', label: 'English' },
  { value: 'zh_CN', label: '中文' },
];

export function LangSwitch() {
  const current = LANG_OPTIONS.find((o) => o.value === lang)?.label ?? lang;
  return (
    <Menu position="bottom-end" width={140}>
      <Menu.Target>
        <Button variant="white" data-testid="lang-switch" aria-label={t('shell.language')}>
          {current}
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        {LANG_OPTIONS.map((o) => (
          <Menu.Item key={o.value} data-lang={o.value} disabled={o.value === lang} onClick={() => switchLang(o.value)}>
            {o.label}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}
