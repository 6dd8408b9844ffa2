/** "The module is switched off": what a rule screen shows instead of its rules. */
import { Alert } from '@mantine/core';
import { shellText, type MessageId } from '../../i18n';

/** `module`: the module key, named by the shell's `module.<key>` text. */
export function ModuleDisabled(props: { module: string }) {
  return (
    <Alert color="orange" data-testid="module-disabled">
      {shellText('shell.moduleDisabled', { module: shellText(`module.${props.module}` as MessageId) })}
    </Alert>
  );
}
