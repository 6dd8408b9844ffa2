/** Screens whose module comes with a later issue: a clear note inside the real layout. */
import { Alert, Stack, Text } from '@mantine/core';
import { MODULES } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { useMatches } from '@tanstack/react-router';
import { modulesQuery } from '../../api/queries';
import { shellText, type MessageId } from '../../i18n';
import { routeMeta } from '../../routeMeta';
import { PageTitle } from '../../shell/Shell';

export function Placeholder() {
  const matches = useMatches();
  const meta = [...matches].map((m) => routeMeta(m.staticData)).reverse().find((m) => m.title);
  const title = meta?.title;
  const module = meta?.module ?? '';
  const moduleName = module ? shellText(`module.${module}` as MessageId) : '';
  const modules = useQuery(modulesQuery());
  const menuKey = MODULES.find((m) => m.key === module)?.menuKey;
  const disabled = !!menuKey && !!modules.data && !modules.data.Modules.includes(menuKey);
  return (
    <Stack data-testid="placeholder" data-module={module}>
      <PageTitle>{title ? shellText(title) : ''}</PageTitle>
      {disabled && (
        <Alert color="orange" data-testid="module-disabled">
          {shellText('shell.moduleDisabled', { module: moduleName })}
        </Alert>
      )}
      <Alert color="blue" title={shellText('shell.placeholder', { module: moduleName })}>
        <Text fz="sm">{shellText('shell.placeholderHint')}</Text>
      </Alert>
    </Stack>
  );
}
