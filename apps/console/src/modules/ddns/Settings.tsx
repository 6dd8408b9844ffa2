/** Module settings: detection interval (presets or custom), first-check delay, concurrency, global webhook. */
import { Alert, Button, Fieldset, Group, Modal, NumberInput, Select, Skeleton, Stack, Text } from '@mantine/core';
import { DDNS_INTERVAL_PRESETS, ZDdnsConfigure, ddnsRoutes, type DdnsConfigure } from '@lucky/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { ApiError, call } from '../../api';
import { pushNotice } from '../../api/notices';
import { lang } from '../../i18n';
import { HINT_BELOW, WebhookEditor } from './editors';
import { configureToForm, errorFor, fieldLabel, firstProblem, formToConfigure, intervalPresetLabel, type SettingsForm } from './form';
import { ddnsText } from './i18n';
import { ddnsConfigureQuery, ddnsKeys } from './queries';
import { credLabel } from './TaskForm';

export function SettingsModal(props: { opened: boolean; onClose: () => void }) {
  const configure = useQuery({ ...ddnsConfigureQuery(), enabled: props.opened });
  return (
    <Modal opened={props.opened} onClose={props.onClose} title={ddnsText('settingsTitle')} size="lg" closeOnClickOutside={false} data-testid="ddns-settings">
      {props.opened &&
        (configure.data ? (
          <SettingsBody initial={configure.data.configure} onClose={props.onClose} />
        ) : configure.isError ? (
          <Alert color="red">{configure.error.message}</Alert>
        ) : (
          <Skeleton h={240} />
        ))}
    </Modal>
  );
}

function SettingsBody({ initial, onClose }: { initial: DdnsConfigure; onClose: () => void }) {
  const [form, setForm] = useState<SettingsForm>(() => configureToForm(initial));
  const [attempt, setAttempt] = useState(0);
  const [serverError, setServerError] = useState<string | null>(null);
  const queryClient = useQueryClient();
  const set = (patch: Partial<SettingsForm>) => setForm((f) => ({ ...f, ...patch }));
  const label = (path: (string | number)[]) => fieldLabel(path, 'callback', ddnsText, credLabel);
  // After a refused save the form is checked again on every change.
  const problem = useMemo(() => (attempt > 0 ? firstProblem(ZDdnsConfigure, formToConfigure(form), lang, label, ddnsText) : null), [attempt, form]);
  const err = (field: string) => errorFor(problem, field);

  const save = useMutation({
    mutationFn: (body: DdnsConfigure) => call(ddnsRoutes.putConfigure, { body }),
    onSuccess: async () => {
      pushNotice(ddnsText('settingsSaved'), 'green');
      onClose();
      await queryClient.invalidateQueries({ queryKey: ddnsKeys.configure });
    },
    onError: (e) => setServerError(e instanceof ApiError ? e.message : String(e)),
  });

  const submit = () => {
    setServerError(null);
    const body = formToConfigure(form);
    setAttempt((n) => n + 1);
    if (!firstProblem(ZDdnsConfigure, body, lang, label, ddnsText)) save.mutate(body);
  };

  const intervalOptions = [
    ...DDNS_INTERVAL_PRESETS.map((s) => {
      const l = intervalPresetLabel(s);
      return { value: String(s), label: ddnsText(l.id, { n: l.n }) };
    }),
    { value: 'custom', label: ddnsText('intervalCustom') },
  ];
  const httpTimeout = 10;

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
      noValidate
    >
      <Stack gap="sm">
        <Group grow align="flex-start">
          <Select
            label={ddnsText('interval')}
            description={ddnsText('intervalHint')}
            data={intervalOptions}
            value={form.intervalChoice}
            allowDeselect={false}
            onChange={(v) => v && set({ intervalChoice: v, ...(v !== 'custom' ? { interval: Number(v) } : {}) })}
            error={form.intervalChoice !== 'custom' ? err('interval') : undefined}
            data-testid="ddns-set-interval"
            inputWrapperOrder={HINT_BELOW}
          />
          {form.intervalChoice === 'custom' && (
            <NumberInput
              clampBehavior="none"
              allowDecimal={false}
              label={ddnsText('intervalCustomValue')}
              min={30}
              max={3600}
              value={form.interval}
              onChange={(v) => set({ interval: v })}
              error={err('interval')}
              data-testid="ddns-set-interval-custom"
            inputWrapperOrder={HINT_BELOW}
            />
          )}
        </Group>
        <Group grow align="flex-start">
          <NumberInput
            clampBehavior="none"
            allowDecimal={false}
            label={ddnsText('firstDelay')}
            description={ddnsText('firstDelayHint')}
            min={0}
            max={3600}
            value={form.firstDelay}
            onChange={(v) => set({ firstDelay: v })}
            error={err('firstDelay')}
            data-testid="ddns-set-firstdelay"
            inputWrapperOrder={HINT_BELOW}
          />
          <NumberInput
            clampBehavior="none"
            allowDecimal={false}
            label={ddnsText('concurrency')}
            min={1}
            max={256}
            value={form.concurrency}
            onChange={(v) => set({ concurrency: v })}
            error={err('concurrency')}
            data-testid="ddns-set-concurrency"
            inputWrapperOrder={HINT_BELOW}
          />
        </Group>
        <Fieldset legend={ddnsText('globalWebhook')}>
          <WebhookEditor
            value={form.webhook}
            onChange={(webhook) => set({ webhook })}
            errorAt={(f) => err(`webhook.${f}`)}
            customized
            httpTimeout={httpTimeout}
            skipVerify={false}
            testId="ddns-set-webhook"
          />
        </Fieldset>
        {problem && (
          <Alert color="red" p="xs" data-testid="ddns-settings-error">
            <Text fz="sm" fw={500}>
              {problem.message}
            </Text>
            <Text fz="xs" c="dimmed">
              {problem.summary}
            </Text>
          </Alert>
        )}
        {serverError && (
          <Alert color="red" p="xs">
            {serverError}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {ddnsText('cancel')}
          </Button>
          <Button type="submit" loading={save.isPending} data-testid="ddns-settings-save">
            {ddnsText('save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
