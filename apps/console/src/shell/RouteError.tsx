import { Alert, Button, Stack, Text } from '@mantine/core';
import type { ErrorComponentProps } from '@tanstack/react-router';
import { shellText } from '../i18n';

/** A screen that failed to load or render: say so in the user's language and offer a reload. */
export function RouteError(props: ErrorComponentProps) {
  return (
    <Stack align="flex-start" m="md" data-testid="route-error">
      <Alert color="red" title={shellText('shell.loadFailed')}>
        <Text fz="sm" style={{ wordBreak: 'break-word' }}>
          {props.error instanceof Error ? props.error.message : String(props.error)}
        </Text>
      </Alert>
      <Button onClick={() => window.location.reload()}>{shellText('shell.retry')}</Button>
    </Stack>
  );
}
