/**
 * Security management (/safe): the state at a glance, then one tab per concern — 2FA, access
 * control, login protection, single sign-on, safe entry path, API tokens, sessions, audit log.
 */
import { Alert, Badge, Button, Card, Group, Skeleton, Stack, Tabs, Text } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { PageTitle } from '../../shell/Shell';
import { AccessSection } from './AccessSection';
import { AuditSection } from './AuditSection';
import { safeText, type SafeTextId } from './i18n';
import { LoginSection } from './LoginSection';
import { safeOverviewQuery } from './queries';
import { SafeUrlSection } from './SafeUrlSection';
import { SessionsSection } from './SessionsSection';
import { SsoSection } from './SsoSection';
import { TokensSection } from './TokensSection';
import { TwoFASection } from './TwoFASection';

export const SAFE_TABS = ['twoFA', 'access', 'login', 'sso', 'safeUrl', 'tokens', 'sessions', 'audit'] as const;
export type SafeTab = (typeof SAFE_TABS)[number];

function Fact(props: { label: string; value: string; color: string; testid: string }) {
  return (
    <Group gap={6} wrap="nowrap">
      <Text fz="sm" c="dimmed">
        {props.label}
      </Text>
      <Badge variant="light" color={props.color} data-testid={props.testid}>
        {props.value}
      </Badge>
    </Group>
  );
}

export function SafePage() {
  const overview = useQuery(safeOverviewQuery());
  const queryClient = useQueryClient();
  const [tab, setTab] = useState<SafeTab>('twoFA');
  const o = overview.data;

  return (
    <Stack data-testid="safe-page" maw={1100}>
      <PageTitle
        right={
          <Button variant="default" onClick={() => void queryClient.invalidateQueries({ queryKey: ['safe'] })} loading={overview.isFetching && !overview.isPending}>
            {safeText('refresh')}
          </Button>
        }
      >
        {safeText('title')}
      </PageTitle>
      {overview.isError && !o ? (
        <Alert color="red">{safeText('loadFailed')}</Alert>
      ) : !o ? (
        <Skeleton h={320} />
      ) : (
        <>
          <Card withBorder py="xs">
            <Group gap="xl">
              <Fact label={safeText('ov.twoFA')} value={o.twoFAEnable ? safeText('ov.on') : safeText('ov.off')} color={o.twoFAEnable ? 'green' : 'gray'} testid="safe-ov-2fa" />
              <Fact
                label={safeText('ov.wan')}
                value={o.allowInternetAccess ? safeText('ov.allowed') : safeText('ov.denied')}
                color={o.allowInternetAccess ? 'orange' : 'green'}
                testid="safe-ov-wan"
              />
              <Fact label={safeText('ov.safeUrl')} value={o.safeURL ? safeText('ov.set') : safeText('ov.notSet')} color={o.safeURL ? 'green' : 'gray'} testid="safe-ov-safeurl" />
            </Group>
          </Card>
          <Tabs value={tab} onChange={(v) => v && setTab(v as SafeTab)} keepMounted={false} variant="outline">
            <Tabs.List>
              {SAFE_TABS.map((id) => (
                <Tabs.Tab key={id} value={id} data-testid={`safe-tab-${id}`}>
                  {safeText(`tab.${id}` as SafeTextId)}
                </Tabs.Tab>
              ))}
            </Tabs.List>
            <Tabs.Panel value="twoFA" pt="md">
              <TwoFASection enabled={o.twoFAEnable} codesLeft={o.recoveryCodesLeft} />
            </Tabs.Panel>
            <Tabs.Panel value="access" pt="md">
              <AccessSection access={o.access} allowInternetAccess={o.allowInternetAccess} />
            </Tabs.Panel>
            <Tabs.Panel value="login" pt="md">
              <LoginSection settings={o.loginProtection} />
            </Tabs.Panel>
            <Tabs.Panel value="sso" pt="md">
              <SsoSection />
            </Tabs.Panel>
            <Tabs.Panel value="safeUrl" pt="md">
              <SafeUrlSection safeURL={o.safeURL} />
            </Tabs.Panel>
            <Tabs.Panel value="tokens" pt="md">
              <TokensSection />
            </Tabs.Panel>
            <Tabs.Panel value="sessions" pt="md">
              <SessionsSection />
            </Tabs.Panel>
            <Tabs.Panel value="audit" pt="md">
              <AuditSection />
            </Tabs.Panel>
          </Tabs>
        </>
      )}
    </Stack>
  );
}
