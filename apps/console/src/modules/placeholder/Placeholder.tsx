/** Screens whose module comes with a later issue: a clear note inside the real layout. */
import { Alert, Text } from '@mantine/core';
import { useMatches } from '@tanstack/react-router';
import { t, type MessageId } from '../../i18n';
import { routeMeta } from '../../routes';
import { PageTitle } from '../../shell/Shell';

export function Placeholder() {
  const matches = useMatches();
  const meta = [...matches].map((m) => routeMeta(m.staticData)).reverse().find((m) => m.title);
  const title = meta?.title;
  const module = meta?.module ?? '';
  const moduleName = module ? t(`module.${module}` as MessageId) : '';
  return (
    <div data-testid="placeholder" data-module={module}>
      <PageTitle>{title ? t(title) : ''}</PageTitle>
      <Alert color="blue" title={t('shell.placeholder', { module: moduleName })}>
        <Text fz="sm">{t('shell.placeholderHint')}</Text>
      </Alert>
    </div>
  );
}
