/** The module settings (the whole object, PUT replaces it) and a rule's log (polled with `pre`). */
import { Alert, Button, Divider, Group, Modal, NumberInput, Skeleton, Stack, Switch } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { portforwardRoutes, type PortforwardConfigure } from '@lucky/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { ApiError, call } from '../../api';
import { pushNotice } from '../../api/notices';
import { lang } from '../../i18n';
import { checkSettings, errorAt, formatTime, settingsToBody, settingsToForm, type PfRow, type SettingsForm } from './form';
import { pfText, type PfTextId } from './i18n';
import { pfConfigureQuery, pfKeys, pfLogsQuery } from './queries';
import { LogLines } from '../../shell/RuleScreen';

export function SettingsModal(props: { opened: boolean; onClose: () => void }) {
  const configure = useQuery({ ...pfConfigureQuery(), enabled: props.opened });
  return (
    <Modal opened={props.opened} onClose={props.onClose} title={pfText('settingsTitle')} size={640} closeOnClickOutside={false} data-testid="pf-settings">
      {props.opened &&
        (configure.data ? (
          <SettingsBody initial={configure.data.configure} onClose={props.onClose} />
        ) : configure.isError ? (
          <Alert color="red">{configure.error.message}</Alert>
        ) : (
          <Skeleton h={200} />
        ))}
    </Modal>
  );
}

type NumberKey = Exclude<keyof SettingsForm, 'logConnections'>;
const LABELS: Record<NumberKey, PfTextId> = {
  tcpMaxConnections: 'set.tcpMaxConnections',
  udpMaxSessions: 'set.udpMaxSessions',
  ruleTcpMaxConnections: 'set.ruleTcpMaxConnections',
  ruleUdpMaxSessions: 'set.ruleUdpMaxSessions',
  udpSessionTimeout: 'limit.udpSessionTimeout',
  udpPacketSize: 'limit.udpPacketSize',
  tcpIdleTimeout: 'limit.tcpIdleTimeout',
  connectTimeout: 'set.connectTimeout',
};
const BOUNDS: Record<NumberKey, [number, number]> = {
  tcpMaxConnections: [0, 1_000_000],
  udpMaxSessions: [0, 1_000_000],
  ruleTcpMaxConnections: [0, 1_000_000],
  ruleUdpMaxSessions: [0, 1_000_000],
  udpSessionTimeout: [1, 86_400],
  udpPacketSize: [64, 65_507],
  tcpIdleTimeout: [0, 604_800],
  connectTimeout: [1, 120],
};

function SettingsBody(props: { initial: PortforwardConfigure; onClose: () => void }) {
  const [form, setForm] = useState<SettingsForm>(() => settingsToForm(props.initial));
  const [attempt, setAttempt] = useState(0);
  const [serverError, setServerError] = useState<string | null>(null);
  const queryClient = useQueryClient();
  const problems = useMemo(() => (attempt > 0 ? checkSettings(form, lang, pfText) : []), [attempt, form]);
  const save = useMutation({
    mutationFn: (body: PortforwardConfigure) => call(portforwardRoutes.putConfigure, { body }, { silent: true }),
    onSuccess: async () => {
      pushNotice(pfText('settingsSaved'), 'green');
      props.onClose();
      await queryClient.invalidateQueries({ queryKey: pfKeys.all });
    },
    onError: (e) => setServerError(e instanceof ApiError ? e.message : String(e)),
  });

  const num = (k: NumberKey, description?: string) => (
    <NumberInput
      clampBehavior="none"
      allowDecimal={false}
      allowNegative={false}
      label={pfText(LABELS[k])}
      description={description ?? `${BOUNDS[k][0]}-${BOUNDS[k][1]}`}
      min={BOUNDS[k][0]}
      max={BOUNDS[k][1]}
      value={form[k]}
      onChange={(v) => setForm((f) => ({ ...f, [k]: v }))}
      error={errorAt(problems, k)}
      data-testid={`pf-set-${k}`}
    />
  );

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        setServerError(null);
        setAttempt((n) => n + 1);
        if (checkSettings(form, lang, pfText).length === 0) save.mutate(settingsToBody(form));
      }}
      noValidate
    >
      <Stack gap="sm">
        <Divider label={pfText('setGlobal')} labelPosition="left" />
        <Group grow align="flex-start">
          {num('tcpMaxConnections', pfText('zeroUnlimited'))}
          {num('udpMaxSessions', pfText('zeroUnlimited'))}
        </Group>
        <Divider label={pfText('setDefaults')} labelPosition="left" />
        <Group grow align="flex-start">
          {num('ruleTcpMaxConnections', pfText('zeroUnlimited'))}
          {num('ruleUdpMaxSessions', pfText('zeroUnlimited'))}
        </Group>
        <Group grow align="flex-start">
          {num('udpSessionTimeout')}
          {num('udpPacketSize')}
        </Group>
        <Group grow align="flex-start">
          {num('tcpIdleTimeout', `${pfText('zeroUnlimited')} · 0-604800`)}
          <div />
        </Group>
        <Divider label={pfText('setOther')} labelPosition="left" />
        <Group grow align="flex-start">
          {num('connectTimeout', `${pfText('set.connectTimeoutHint')} · 1-120`)}
          <Switch
            mt={28}
            label={pfText('set.logConnections')}
            description={pfText('set.logConnectionsHint')}
            checked={form.logConnections}
            onChange={(e) => {
              const logConnections = e.currentTarget.checked;
              setForm((f) => ({ ...f, logConnections }));
            }}
            data-testid="pf-set-logConnections"
          />
        </Group>
        {problems.length > 0 && (
          <Alert color="red" p="xs" data-testid="pf-settings-error">
            {problems.map((p) => (
              <div key={p.field}>{p.message}</div>
            ))}
          </Alert>
        )}
        {serverError && (
          <Alert color="red" p="xs">
            {serverError}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onClose}>
            {pfText('cancel')}
          </Button>
          <Button type="submit" loading={save.isPending} data-testid="pf-settings-save">
            {pfText('save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function RuleLogModal(props: { rule: PfRow | null; onClose: () => void }) {
  const narrow = useMediaQuery('(max-width: 768px)');
  return (
    <Modal
      opened={props.rule !== null}
      onClose={props.onClose}
      title={props.rule ? pfText('logTitle', { name: props.rule.name }) : ''}
      size={1300}
      fullScreen={narrow}
      data-testid="pf-log"
    >
      {props.rule && <RuleLogBody ruleKey={props.rule.key} />}
    </Modal>
  );
}

/** Follows new lines while the view is at the bottom; stops following once the user scrolls up. */
function RuleLogBody({ ruleKey }: { ruleKey: string }) {
  const logs = useQuery(pfLogsQuery(ruleKey));
  if (logs.isError) return <Alert color="red">{logs.error.message}</Alert>;
  return (
    <LogLines
      lines={logs.data?.map((l) => (/^\d{4}-\d\d-\d\d/.test(l.log) ? l.log : `${formatTime(l.timestamp)} ${l.log}`))}
      loading={logs.isPending}
      emptyText={pfText('noLogs')}
      testId="pf-log-text"
      maxHeight="65vh"
    />
  );
}
