import { Anchor, Stack, Text } from '@mantine/core';
import { Link } from '@tanstack/react-router';
import { shellText } from '../i18n';

export function NotFound() {
  return (
    <Stack align="center" mt="xl">
      <Text fz="lg">{shellText('shell.notFound')}</Text>
      <Anchor component={Link} to="/about">
        {shellText('shell.backHome')}
      </Anchor>
    </Stack>
  );
}
