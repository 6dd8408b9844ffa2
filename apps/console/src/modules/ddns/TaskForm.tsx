/** Add/edit a DDNS task: easy mode (the common fields) or customized mode (every field of ZDdnsTask). */
import {
  Alert,
  Button,
  Fieldset,
  Group,
  Modal,
  NumberInput,
  SegmentedControl,
  Select,
  Stack,
  Switch,
  Text,
  TextInput,
  Textarea,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { DDNS_PROVIDER_INFO, DDNS_PROVIDERS, ZDdnsTask, ddnsRoutes, type DdnsProviderName, type DdnsTask } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useRef, useState } from 'react';
import { lang } from '../../i18n';
import { CallbackEditor, HINT_BELOW, ProxyEditor, SecretInput, SourceEditor, WebhookEditor } from './editors';
import {
  emptyForm,
  errorFor,
  families,
  fieldLabel,
  firstProblem,
  formToTask,
  hiddenInEasyMode,
  switchProvider,
  taskToForm,
  type TaskForm,
} from './form';
import { ddnsText, zh_CN, type DdnsTextId } from './i18n';
import { ddnsKeys, ddnsProvidersQuery } from './queries';
import { useScrollToProblem } from '../../shell/RuleScreen';
import { useRuleSave } from '../../shell/useRuleActions';

/** A provider's credential label in the page's language when the screen knows it, else as the daemon gives it. */
export function credLabel(raw: string): string {
  const id = `cred.${raw}`;
  return id in zh_CN ? ddnsText(id as DdnsTextId) : raw;
}

export interface Editing {
  key: string | null;
  /** The task as stored (secrets masked), null for a new one. */
  saved: DdnsTask | null;
}

const mono = { input: { fontFamily: 'monospace', fontSize: 12 } };
const asNumber = (v: number | string) => (typeof v === 'number' ? v : Number(v));

export function TaskFormModal(props: { editing: Editing | null; onClose: () => void }) {
  const narrow = useMediaQuery('(max-width: 768px)');
  return (
    <Modal
      opened={props.editing !== null}
      onClose={props.onClose}
      title={props.editing?.key ? ddnsText('edit') : ddnsText('add')}
      size="xl"
      fullScreen={narrow}
      closeOnClickOutside={false}
      data-testid="ddns-form"
    >
      {props.editing && <TaskFormBody editing={props.editing} onClose={props.onClose} />}
    </Modal>
  );
}

function TaskFormBody({ editing, onClose }: { editing: Editing; onClose: () => void }) {
  const [form, setForm] = useState<TaskForm>(() => (editing.saved ? taskToForm(editing.saved) : emptyForm()));
  // Checked on save; after a refused save, again on every change so a fixed field stops showing red.
  const [attempt, setAttempt] = useState(0);
  const [switchedMode, setSwitchedMode] = useState(false);
  const [serverError, setServerError] = useState<string | null>(null);
  const providers = useQuery(ddnsProvidersQuery());
  const rootRef = useRef<HTMLDivElement>(null);

  const edit = (fn: (d: TaskForm) => void) =>
    setForm((prev) => {
      const d = structuredClone(prev);
      fn(d);
      return d;
    });

  const info = providers.data?.providers.find((p) => p.name === form.provider) ?? { name: form.provider, ...DDNS_PROVIDER_INFO[form.provider] };
  const customized = form.mode === 'customized';
  const label = (path: (string | number)[]) => fieldLabel(path, form.provider, ddnsText, credLabel);
  const problem = useMemo(
    () => (attempt > 0 ? firstProblem(ZDdnsTask, formToTask(form), lang, (path) => fieldLabel(path, form.provider, ddnsText, credLabel), ddnsText) : null),
    [attempt, form],
  );
  const err = (field: string) => errorFor(problem, field);

  useScrollToProblem(rootRef, attempt);

  const save = useRuleSave<DdnsTask>({
    routes: ddnsRoutes,
    ruleKey: editing.key,
    invalidate: ddnsKeys.tasks,
    savedText: ddnsText('saved'),
    onSaved: onClose,
    onError: setServerError,
  });

  const submit = () => {
    setServerError(null);
    setSwitchedMode(false);
    const task = formToTask(form);
    const p = firstProblem(ZDdnsTask, task, lang, label, ddnsText);
    setAttempt((n) => n + 1);
    if (p) {
      if (!customized && hiddenInEasyMode(p.path)) {
        edit((d) => void (d.mode = 'customized'));
        setSwitchedMode(true);
      }
      return;
    }
    save.mutate(task);
  };

  const providerOptions = (providers.data?.providers.map((p) => p.name) ?? [...DDNS_PROVIDERS]).map((name) => ({ value: name, label: ddnsText(`provider.${name}`) }));
  const ttlInfo = { ttl: info.defaultTtl, min: info.minTtl };

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
      noValidate
    >
      <Stack gap="md" ref={rootRef}>
        <Fieldset legend={ddnsText('sectionBasic')}>
          <Stack gap="xs">
            <Group grow align="flex-start">
              <TextInput label={ddnsText('name')} value={form.name} onChange={(e) => {
                  const v = e.currentTarget.value;
                  edit((d) => void (d.name = v));
                }} error={err('name')} data-testid="ddns-name" />
              <Switch mt={30} label={ddnsText('enable')} checked={form.enable} onChange={(e) => {
                  const v = e.currentTarget.checked;
                  edit((d) => void (d.enable = v));
                }} data-testid="ddns-enable" />
            </Group>
            <Group align="flex-end" gap="md">
              <Stack gap={4}>
                <Text fz="sm" fw={500}>
                  {ddnsText('mode')}
                </Text>
                <SegmentedControl
                  data={[
                    { value: 'easy', label: ddnsText('modeEasy') },
                    { value: 'customized', label: ddnsText('modeCustomized') },
                  ]}
                  value={form.mode}
                  onChange={(v) => edit((d) => void (d.mode = v as TaskForm['mode']))}
                  data-testid="ddns-mode"
                />
              </Stack>
              <Stack gap={4}>
                <Text fz="sm" fw={500}>
                  {ddnsText('recordType')}
                </Text>
                <SegmentedControl
                  data={[
                    { value: 'A', label: ddnsText('recordA') },
                    { value: 'AAAA', label: ddnsText('recordAAAA'), disabled: !info.ipv6 },
                    { value: 'both', label: ddnsText('recordBoth'), disabled: !info.ipv6 },
                  ]}
                  value={form.recordType}
                  onChange={(v) => edit((d) => void (d.recordType = v as TaskForm['recordType']))}
                  data-testid="ddns-recordtype"
                />
              </Stack>
            </Group>
            <Text fz="xs" c="dimmed">
              {ddnsText('modeHint')}
            </Text>
            {err('recordType') && (
              <Text fz="xs" c="red">
                {err('recordType')}
              </Text>
            )}
          </Stack>
        </Fieldset>

        <Fieldset legend={ddnsText('sectionProvider')}>
          <Stack gap="xs">
            <Select
              label={ddnsText('provider')}
              description={info.ipv6 ? ddnsText('providerHint', { ttl: info.minTtl }) : `${ddnsText('providerHint', { ttl: info.minTtl })} · ${ddnsText('providerNoIpv6')}`}
              data={providerOptions}
              value={form.provider}
              allowDeselect={false}
              searchable
              onChange={(v) => v && setForm((f) => switchProvider(f, v as DdnsProviderName, editing.saved))}
              data-testid="ddns-provider"
            />
            {(info.id || info.secret) && (
              <Group grow align="flex-start">
                {info.id && (
                  <TextInput
                    label={credLabel(info.id)}
                    value={form.credentials.id}
                    onChange={(e) => {
                  const v = e.currentTarget.value;
                  edit((d) => void (d.credentials.id = v));
                }}
                    error={err('credentials.id')}
                    autoComplete="off"
                    data-testid="ddns-cred-id"
                  />
                )}
                {info.secret && (
                  <SecretInput
                    label={credLabel(info.secret)}
                    value={form.credentials.secret}
                    onChange={(v) => edit((d) => void (d.credentials.secret = v))}
                    error={err('credentials.secret')}
                    testId="ddns-cred-secret"
                  />
                )}
              </Group>
            )}
            {info.server && (
              <Group grow align="flex-start">
                <TextInput
                  label={credLabel(info.server)}
                  value={form.credentials.server}
                  onChange={(e) => {
                  const v = e.currentTarget.value;
                  edit((d) => void (d.credentials.server = v));
                }}
                  error={err('credentials.server')}
                  data-testid="ddns-cred-server"
                />
                <Select
                  label={ddnsText('algorithm')}
                  data={['hmac-sha256', 'hmac-sha512', 'hmac-sha1']}
                  value={form.credentials.algorithm}
                  allowDeselect={false}
                  onChange={(v) => v && edit((d) => void (d.credentials.algorithm = v as TaskForm['credentials']['algorithm']))}
                />
              </Group>
            )}
            {form.provider === 'callback' && (
              <CallbackEditor value={form.callback} onChange={(c) => edit((d) => void (d.callback = c))} errorAt={(f) => err(`callback.${f}`)} customized={customized} />
            )}
            <Textarea
              label={ddnsText('domains')}
              description={ddnsText('domainsHint')}
              autosize
              minRows={2}
              maxRows={10}
              value={form.domains}
              onChange={(e) => {
                  const v = e.currentTarget.value;
                  edit((d) => void (d.domains = v));
                }}
              error={err('domains')}
              styles={mono}
              data-testid="ddns-domains"
            />
          </Stack>
        </Fieldset>

        <Fieldset legend={ddnsText('sectionSource')}>
          <Stack gap="lg">
            {families(form.recordType).map((f) => (
              <SourceEditor
                key={f}
                family={f}
                value={form[f]}
                onChange={(s) => edit((d) => void (d[f] = s))}
                customized={customized}
                errorAt={(field) => err(`${f}.${field}`)}
                context={{ proxy: form.proxy, httpTimeout: asNumber(form.httpTimeout), skipVerify: form.skipVerify }}
              />
            ))}
          </Stack>
        </Fieldset>

        <Fieldset legend={ddnsText('sectionWebhook')}>
          <WebhookEditor
            value={form.webhook}
            onChange={(w) => edit((d) => void (d.webhook = w))}
            errorAt={(f) => err(`webhook.${f}`)}
            customized={customized}
            httpTimeout={asNumber(form.httpTimeout)}
            skipVerify={form.skipVerify}
            testId="ddns-webhook"
          />
        </Fieldset>

        {customized && (
          <Fieldset legend={ddnsText('sectionAdvanced')} data-testid="ddns-advanced">
            <Stack gap="xs">
              <Switch
                label={ddnsText('resolverCheck')}
                description={ddnsText('resolverCheckHint')}
                checked={form.resolverCheck.enable}
                onChange={(e) => {
                  const v = e.currentTarget.checked;
                  edit((d) => void (d.resolverCheck.enable = v));
                }}
                data-testid="ddns-resolver"
              />
              {form.resolverCheck.enable && (
                <Textarea
                  label={ddnsText('resolverServers')}
                  description={ddnsText('resolverServersHint')}
                  autosize
                  minRows={2}
                  value={form.resolverCheck.servers}
                  onChange={(e) => {
                  const v = e.currentTarget.value;
                  edit((d) => void (d.resolverCheck.servers = v));
                }}
                  error={err('resolverCheck.servers')}
                  styles={mono}
                  data-testid="ddns-resolver-servers"
                />
              )}
              <Group grow align="flex-start">
                <NumberInput
                  clampBehavior="none"
                  allowDecimal={false}
                  label={ddnsText('ttl')}
                  description={ddnsText('ttlHint', ttlInfo)}
                  min={0}
                  max={86400}
                  value={form.ttl}
                  onChange={(v) => edit((d) => void (d.ttl = v))}
                  error={err('ttl')}
                  data-testid="ddns-ttl"
                  inputWrapperOrder={HINT_BELOW}
                />
                <NumberInput
                  clampBehavior="none"
                  allowDecimal={false}
                  label={ddnsText('forceSync')}
                  description={ddnsText('forceSyncHint')}
                  min={60}
                  max={3600}
                  value={form.forceSync}
                  onChange={(v) => edit((d) => void (d.forceSync = v))}
                  error={err('forceSync')}
                  data-testid="ddns-forcesync"
                  inputWrapperOrder={HINT_BELOW}
                />
                <NumberInput
                  clampBehavior="none"
                  allowDecimal={false}
                  label={ddnsText('httpTimeout')}
                  description={ddnsText('httpTimeoutHint')}
                  min={3}
                  max={60}
                  value={form.httpTimeout}
                  onChange={(v) => edit((d) => void (d.httpTimeout = v))}
                  error={err('httpTimeout')}
                  data-testid="ddns-httptimeout"
                  inputWrapperOrder={HINT_BELOW}
                />
              </Group>
              <Switch label={ddnsText('skipVerify')} checked={form.skipVerify} onChange={(e) => {
                  const v = e.currentTarget.checked;
                  edit((d) => void (d.skipVerify = v));
                }} />
              <ProxyEditor label={ddnsText('proxy')} value={form.proxy} onChange={(p) => edit((d) => void (d.proxy = p))} errorAt={(f) => err(`proxy.${f}`)} testId="ddns-proxy" />
            </Stack>
          </Fieldset>
        )}

        {problem && (
          <Alert color="red" p="xs" data-testid="ddns-form-error">
            <Text fz="sm" fw={500} data-testid="ddns-form-error-message">
              {problem.message}
            </Text>
            <Text fz="xs" c="dimmed" data-testid="ddns-form-error-summary">
              {problem.summary}
            </Text>
            {switchedMode && (
              <Text fz="xs" c="dimmed">
                {ddnsText('err.hiddenField')}
              </Text>
            )}
          </Alert>
        )}
        {serverError && (
          <Alert color="red" p="xs" data-testid="ddns-form-server-error">
            {serverError}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {ddnsText('cancel')}
          </Button>
          <Button type="submit" loading={save.isPending} data-testid="ddns-save">
            {ddnsText('save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
