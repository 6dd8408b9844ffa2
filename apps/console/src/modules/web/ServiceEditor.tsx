/** A service of each type: reverse proxy (targets, balancing, health, headers), redirect, jump, files, text, close. */
import { Group, Select, Stack, Switch, Text, TextInput } from '@mantine/core';
import { bindFields } from '../../kit/form/bindFields';
import { HeaderListInput } from '../../kit/fields/HeaderListInput';
import { LinesInput } from '../../kit/fields/LinesInput';
import { mono } from '../../kit/fields/styles';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import { BALANCES, REDIRECT_CODES, SERVICE_TYPES, type ServiceForm } from './form';
import { webText } from './i18n';

type ErrorAt = (field: string) => string | undefined;
type Flag = 'websocket' | 'useRequestHost' | 'skipTlsVerify' | 'forwardedHeaders' | 'listing';

export function ServiceEditor(props: { value: ServiceForm; onChange: (v: ServiceForm) => void; errorAt: ErrorAt; testId: string }) {
  const s = props.value;
  const set = (patch: Partial<ServiceForm>) => props.onChange({ ...s, ...patch });
  const b = bindFields(s, set, props.errorAt);
  const tid = props.testId;
  const flag = (key: Flag) => <Switch label={webText(key)} {...b.check(key)} data-testid={`${tid}-${key}`} />;
  return (
    <Stack gap="xs" data-testid={tid}>
      <Select
        label={webText('serviceType')}
        data={SERVICE_TYPES.map((v) => ({ value: v, label: webText(`type.${v}`) }))}
        allowDeselect={false}
        {...b.choice('type')}
        data-testid={`${tid}-type`}
        maw={320}
      />
      {s.type === 'proxy' && <ProxyFields value={s} set={set} errorAt={props.errorAt} flag={flag} testId={tid} />}
      {s.type === 'redirect' && (
        <Group grow align="flex-start">
          <Select
            label={webText('redirectCode')}
            data={REDIRECT_CODES.map((c) => String(c))}
            value={String(s.code)}
            allowDeselect={false}
            onChange={(v) => v && set({ code: Number(v) as ServiceForm['code'] })}
            style={{ flexGrow: 0, minWidth: 120 }}
          />
          <TextInput label={webText('redirectTarget')} description={webText('targetVars')} {...b.text('redirectTarget', 'target')} styles={mono} data-testid={`${tid}-redirect-target`} />
        </Group>
      )}
      {s.type === 'jump' && <TextInput label={webText('jumpTarget')} description={webText('targetVars')} {...b.text('jumpTarget', 'target')} styles={mono} data-testid={`${tid}-jump-target`} />}
      {s.type === 'file' && (
        <>
          <TextInput label={webText('root')} placeholder="/srv/www" {...b.text('root')} styles={mono} data-testid={`${tid}-root`} />
          <Group grow align="flex-start">
            <LinesInput label={webText('index')} description={webText('indexHint')} minRows={1} maxRows={4} {...b.text('index')} />
            <Stack justify="center" pt={24}>
              {flag('listing')}
            </Stack>
          </Group>
        </>
      )}
      {s.type === 'text' && (
        <>
          <Group grow align="flex-start">
            <WholeNumberInput label={webText('textStatus')} min={200} max={599} {...b.number('status')} style={{ flexGrow: 0, minWidth: 120 }} data-testid={`${tid}-status`} />
            <TextInput label={webText('contentType')} {...b.text('contentType')} styles={mono} />
          </Group>
          <LinesInput label={webText('textBody')} description={webText('textVars')} minRows={3} maxRows={12} {...b.text('body')} data-testid={`${tid}-body`} />
        </>
      )}
      {s.type === 'close' && (
        <Text fz="sm" c="dimmed">
          {webText('closeHint')}
        </Text>
      )}
    </Stack>
  );
}

/** The reverse proxy: backends and how they are chosen, health checks, what is passed on. */
function ProxyFields(props: { value: ServiceForm; set: (patch: Partial<ServiceForm>) => void; errorAt: ErrorAt; flag: (key: Flag) => React.ReactNode; testId: string }) {
  const { value: s, set, flag } = props;
  const b = bindFields(s, set, props.errorAt);
  const hc = s.healthCheck;
  const health = bindFields(hc, (patch) => set({ healthCheck: { ...hc, ...patch } }), props.errorAt, 'healthCheck.');
  return (
    <>
      <LinesInput
        label={webText('targets')}
        description={webText('targetsHint')}
        // A red placeholder under an error would read like a value.
        placeholder={props.errorAt('targets') ? undefined : 'http://192.168.1.10:8080'}
        {...b.text('targets')}
        data-testid={`${props.testId}-targets`}
      />
      <Group grow align="flex-start">
        <Select label={webText('balance')} data={BALANCES.map((v) => ({ value: v, label: webText(`balance.${v}`) }))} allowDeselect={false} {...b.choice('balance')} />
        <WholeNumberInput label={webText('maxFails')} min={1} max={100} {...b.number('maxFails')} />
        <WholeNumberInput label={webText('failTimeout')} min={1} max={3600} {...b.number('failTimeoutSeconds')} />
        <WholeNumberInput label={webText('proxyTimeout')} min={1} max={3600} {...b.number('timeoutSeconds')} />
      </Group>
      <Text fz="xs" c="dimmed">
        {webText('passiveHint')}
      </Text>
      <Switch label={webText('healthCheck')} {...health.check('enable')} data-testid={`${props.testId}-health`} />
      {hc.enable && (
        <Group grow align="flex-start">
          <TextInput label={webText('healthPath')} {...health.text('path')} styles={mono} />
          <WholeNumberInput label={webText('healthInterval')} min={1} max={3600} {...health.number('intervalSeconds')} />
          <WholeNumberInput label={webText('healthTimeout')} min={1} max={60} {...health.number('timeoutSeconds')} />
        </Group>
      )}
      <Group gap="lg">
        {flag('websocket')}
        {flag('useRequestHost')}
        {flag('forwardedHeaders')}
        {flag('skipTlsVerify')}
      </Group>
      {props.value.websocket && (
        <WholeNumberInput label={webText('websocketIdle')} description={webText('websocketIdleHint')} min={0} max={86400} {...b.number('websocketIdleSeconds')} maw={320} data-testid={`${props.testId}-wsidle`} />
      )}
      <Group grow align="flex-start">
        <HeaderListInput label={webText('requestHeaders')} minRows={2} {...b.text('requestHeaders')} />
        <HeaderListInput label={webText('responseHeaders')} minRows={2} {...b.text('responseHeaders')} />
      </Group>
    </>
  );
}
