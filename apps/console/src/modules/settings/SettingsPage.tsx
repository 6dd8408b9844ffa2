/**
 * Settings: every base-config field, checked with the contracts' ZBaseSettings (the same schema the
 * daemon uses) before anything is sent; a port or address change tells the user where to go next.
 */
import {
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  PasswordInput,
  Select,
  SimpleGrid,
  Skeleton,
  Stack,
  Switch,
  Text,
  TextInput,
} from '@mantine/core';
import { MODULES, ZBaseSettings, coreRoutes, formatIssues, type BaseSettings, type ModuleKey } from '@lucky/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { ApiError, call } from '../../api';
import { pushNotice } from '../../api/notices';
import { baseConfigQuery } from '../../api/queries';
import { lang, shellText, type MessageId } from '../../i18n';
import { toNumber, type Num } from '../../kit/form/values';
import { LinesInput } from '../../kit/fields/LinesInput';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import { LOG_LEVEL_VALUES } from '../../lib/helpers';
import { PageTitle } from '../../shell/Shell';
import { TitledCard } from '../../shell/TitledCard';
import { SystemPanel } from './SystemPanel';

/** The address the console answers at after a listen change, as seen from this browser. */
export function newConsoleAddress(loc: { protocol: string; hostname: string }, host: string, port: number): string {
  const anyAddress = host === '' || host === '::' || host === '0.0.0.0';
  const h = anyAddress ? loc.hostname : host;
  const hostPart = h.includes(':') && !h.startsWith('[') ? `[${h}]` : h;
  return `${loc.protocol}//${hostPart}:${port}/`;
}

function pick(v: BaseSettings): BaseSettings {
  return {
    AdminWebListenHost: v.AdminWebListenHost,
    AdminWebListenPort: v.AdminWebListenPort,
    AdminAccount: v.AdminAccount,
    LogLevel: v.LogLevel,
    LogMaxSize: v.LogMaxSize,
    FrontendDisableAutoExpandLeftMenu: v.FrontendDisableAutoExpandLeftMenu,
    AllowInternetAccess: v.AllowInternetAccess,
    EnabledModules: [...v.EnabledModules],
    SessionIdleHours: v.SessionIdleHours,
    MetricsAllowFrom: [...v.MetricsAllowFrom],
    InfoFeedUrl: v.InfoFeedUrl,
  };
}

export function SettingsPage() {
  const query = useQuery(baseConfigQuery());
  const cfg = query.data?.baseconfigure;
  const [form, setForm] = useState<BaseSettings | null>(null);
  const [password, setPassword] = useState('');
  const [password2, setPassword2] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [moved, setMoved] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const queryClient = useQueryClient();

  useEffect(() => {
    if (cfg && !form) setForm(pick(cfg));
  }, [cfg, form]);

  if (!form || !cfg) {
    return (
      <Stack data-testid="settings-page">
        <PageTitle>{shellText('set.title')}</PageTitle>
        {query.isError ? <Alert color="red">{shellText('shell.loadFailed')}</Alert> : <Skeleton h={300} />}
      </Stack>
    );
  }

  const set = <K extends keyof BaseSettings>(key: K, value: BaseSettings[K]) => setForm({ ...form, [key]: value });
  /** A number field: what is not a number stays NaN, so the check names the field. */
  const number = (key: 'AdminWebListenPort' | 'SessionIdleHours' | 'LogMaxSize') => ({ value: form[key], onChange: (v: Num) => set(key, toNumber(v)) });
  const toggleModule = (key: ModuleKey, on: boolean) =>
    set(
      'EnabledModules',
      MODULES.map((m) => m.key).filter((k) => (k === key ? on : form.EnabledModules.includes(k))),
    );

  const save = async () => {
    setError(null);
    setMoved(null);
    const entered = { ...form, MetricsAllowFrom: form.MetricsAllowFrom.map((l) => l.trim()).filter((l) => l !== '') };
    const checked = ZBaseSettings.safeParse(entered);
    if (!checked.success) {
      setError(formatIssues(ZBaseSettings, entered, lang));
      return;
    }
    if (password !== password2) {
      setError(shellText('set.passwordMismatch'));
      return;
    }
    setBusy(true);
    try {
      const res = await call(coreRoutes.putBaseConfig, { body: { ...checked.data, ...(password ? { AdminPassword: password } : {}) } }, { silent: true });
      const next = res.baseconfigure;
      setForm(pick(next));
      setPassword('');
      setPassword2('');
      queryClient.setQueryData(baseConfigQuery().queryKey, { ret: 0, baseconfigure: next });
      if (next.AdminWebListenPort !== cfg.AdminWebListenPort || next.AdminWebListenHost !== cfg.AdminWebListenHost) {
        // This address no longer answers: say where the console went instead of asking it again.
        setMoved(newConsoleAddress(window.location, next.AdminWebListenHost, next.AdminWebListenPort));
      } else {
        await queryClient.invalidateQueries({ queryKey: ['modules'] });
        await queryClient.invalidateQueries({ queryKey: ['frontendcontrol'] });
        // Another feed URL (or none): the About page asks again; nothing is read now.
        queryClient.removeQueries({ queryKey: ['infofeed'] });
      }
      pushNotice(res.msg || shellText('set.saved'), 'green');
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Stack data-testid="settings-page" maw={1100}>
      <PageTitle
        right={
          <Group>
            <Button variant="default" onClick={() => setForm(pick(cfg))}>
              {shellText('set.reset')}
            </Button>
            <Button onClick={() => void save()} loading={busy} data-testid="settings-save">
              {shellText('set.save')}
            </Button>
          </Group>
        }
      >
        {shellText('set.title')}
      </PageTitle>
      {error && (
        <Alert color="red" data-testid="settings-error" withCloseButton onClose={() => setError(null)}>
          {error}
        </Alert>
      )}
      {moved && (
        <Alert color="orange" data-testid="settings-moved">
          {shellText('set.moved', { address: moved })}{' '}
          <Anchor href={moved} target="_blank" rel="noopener noreferrer">
            {shellText('set.openNew')}
          </Anchor>
        </Alert>
      )}
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <TitledCard title={shellText('set.sectionAdmin')}>
          <Stack gap="sm">
            <TextInput
              label={shellText('set.listenHost')}
              description={shellText('set.listenHostHint')}
              value={form.AdminWebListenHost}
              onChange={(e) => set('AdminWebListenHost', e.currentTarget.value.trim())}
              data-testid="set-host"
            />
            <WholeNumberInput label={shellText('set.listenPort')} min={1} max={65535} {...number('AdminWebListenPort')} data-testid="set-port" />
            <WholeNumberInput label={shellText('set.sessionIdleHours')} min={1} max={24 * 90} {...number('SessionIdleHours')} />
            <Switch
              label={shellText('set.autoExpand')}
              checked={form.FrontendDisableAutoExpandLeftMenu}
              onChange={(e) => set('FrontendDisableAutoExpandLeftMenu', e.currentTarget.checked)}
              data-testid="set-autoexpand"
            />
          </Stack>
        </TitledCard>
        <TitledCard title={shellText('set.sectionAccount')}>
          <Stack gap="sm">
            <TextInput
              label={shellText('set.account')}
              value={form.AdminAccount}
              onChange={(e) => set('AdminAccount', e.currentTarget.value)}
              data-testid="set-account"
            />
            <PasswordInput
              label={shellText('set.newPassword')}
              description={shellText('set.newPasswordHint')}
              value={password}
              autoComplete="new-password"
              onChange={(e) => setPassword(e.currentTarget.value)}
              data-testid="set-password"
            />
            <PasswordInput
              label={shellText('set.confirmPassword')}
              value={password2}
              autoComplete="new-password"
              onChange={(e) => setPassword2(e.currentTarget.value)}
              data-testid="set-password2"
            />
            <Group gap="xs">
              <Text fz="sm">{shellText('set.twoFA')}:</Text>
              <Badge color={cfg.TwoFAEnable ? 'green' : 'gray'} variant="light">
                {cfg.TwoFAEnable ? shellText('set.twoFAOn') : shellText('set.twoFAOff')}
              </Badge>
            </Group>
          </Stack>
        </TitledCard>
        <TitledCard title={shellText('set.sectionLog')}>
          <Stack gap="sm">
            <Select
              label={shellText('set.logLevel')}
              data={LOG_LEVEL_VALUES.map((l) => ({ value: String(l), label: shellText(`level.${l}` as MessageId) }))}
              value={String(form.LogLevel)}
              onChange={(v) => v && set('LogLevel', Number(v))}
              allowDeselect={false}
              data-testid="set-loglevel"
            />
            <WholeNumberInput label={shellText('set.logMaxSize')} min={100} max={100000} {...number('LogMaxSize')} data-testid="set-logmax" />
          </Stack>
        </TitledCard>
        <TitledCard title={shellText('set.sectionSecurity')}>
          <Stack gap="sm">
            <Switch
              label={shellText('set.allowInternet')}
              description={shellText('set.allowInternetHint')}
              checked={form.AllowInternetAccess}
              onChange={(e) => set('AllowInternetAccess', e.currentTarget.checked)}
            />
            <LinesInput
              label={shellText('set.metricsAllowFrom')}
              description={shellText('set.metricsAllowFromHint')}
              // Lines as typed (blank ones too) while editing; blank lines are dropped when saving.
              value={form.MetricsAllowFrom.join('\n')}
              onChange={(e) => set('MetricsAllowFrom', e.currentTarget.value.split('\n'))}
              data-testid="set-metrics-allow"
            />
          </Stack>
        </TitledCard>
        <TitledCard title={shellText('set.sectionFeed')}>
          <TextInput
            label={shellText('set.feedUrl')}
            description={shellText('set.feedUrlHint')}
            placeholder="https://"
            value={form.InfoFeedUrl}
            onChange={(e) => set('InfoFeedUrl', e.currentTarget.value.trim())}
            data-testid="set-feedurl"
          />
        </TitledCard>
      </SimpleGrid>
      <TitledCard title={shellText('set.sectionModules')}>
        <SimpleGrid cols={{ base: 2, sm: 3, md: 4 }}>
          {MODULES.map((m) => (
            <Switch
              key={m.key}
              label={shellText(`module.${m.key}` as MessageId)}
              checked={form.EnabledModules.includes(m.key)}
              onChange={(e) => toggleModule(m.key, e.currentTarget.checked)}
              data-testid={`set-module-${m.key}`}
            />
          ))}
        </SimpleGrid>
      </TitledCard>
      <SystemPanel />
    </Stack>
  );
}
