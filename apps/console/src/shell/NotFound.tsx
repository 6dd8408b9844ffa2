import { Anchor, Stack, Text } from '@mantine/core';
import { Link } from '@tanstack/react-router';
import { t } from '../i18n';

export function NotFound() {
  return (
    <Stack align="center" mt="xl">
      <Text fz="lg">{t('shell.notFound')}</Text>
      <Anchor component={Link} to="/about">
        {t('shell.backHome')}
      </Anchor>
    </Stack>
  );
}
