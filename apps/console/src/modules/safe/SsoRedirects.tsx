/**
 * The redirect URIs to register at the provider: the console's (where this page itself lives), and
 * the Lucky login's on every site that has it, as far as the web rules tell.
 */
import { Code, Group, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { webRulesQuery } from '../portal/queries';
import { safeText } from './i18n';
import { consoleCallback, portalCallback, portalCallbacks } from './oidc';
import { CopyBtn, Section } from './ui';

function Uri(props: { uri: string; testid: string }) {
  return (
    <Group gap="xs" wrap="nowrap">
      <Code style={{ wordBreak: 'break-all' }} data-testid={props.testid}>
        {props.uri}
      </Code>
      <CopyBtn text={props.uri} size="compact-xs" testid={`${props.testid}-copy`} />
    </Group>
  );
}

export function SsoRedirects() {
  const rules = useQuery(webRulesQuery()).data?.list;
  const sites = portalCallbacks(rules ?? []);
  return (
    <Section testid="safe-sso-redirects" title={safeText('sso.redirects')} intro={safeText('sso.redirectsIntro')}>
      <Stack gap="xs">
        <Text fz="sm">{safeText('sso.redirectConsole')}</Text>
        <Uri uri={consoleCallback(document.baseURI)} testid="safe-sso-redirect-console" />
        <Text fz="sm" mt="xs">
          {safeText('sso.redirectPortal', { uri: portalCallback('https://<site>') })}
        </Text>
        {rules && (
          <Text fz="xs" c="dimmed">
            {sites.length ? safeText('sso.redirectPortalFound') : safeText('sso.redirectPortalNone')}
          </Text>
        )}
        {sites.map((uri) => (
          <Uri key={uri} uri={uri} testid="safe-sso-redirect-portal" />
        ))}
      </Stack>
    </Section>
  );
}
