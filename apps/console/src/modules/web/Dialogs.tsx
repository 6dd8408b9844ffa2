/** Batch domain replace (spec section 5: the domain cannot be empty) and the module settings. */
import { Alert, Button, Group, Modal, MultiSelect, NumberInput, Skeleton, Stack, TextInput } from '@mantine/core';
import { WEB_SERVING_THREADS_MAX, ZWebConfigure, ZWebDomainReplace, webRoutes, type WebConfigure } from '@lucky/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { ApiError, call } from '../../api';
import { pushNotice } from '../../api/notices';
import { lang } from '../../i18n';
import { errorFor, firstProblem, type Num, type WebRow } from './form';
import { webText } from './i18n';
import { webConfigureQuery, webKeys } from './queries';

export interface ReplaceForm {
  from: string;
  to: string;
  keys: string[];
}
export const replaceBody = (f: ReplaceForm) => ({ from: f.from.trim(), to: f.to.trim(), keys: f.keys });
export const replaceProblem = (f: ReplaceForm) => firstProblem(ZWebDomainReplace, replaceBody(f), lang, webText);

export function ReplaceModal(props: { opened: boolean; onClose: () => void; rules: WebRow[] }) {
  return (
    <Modal opened={props.opened} onClose={props.onClose} title={webText('replace')} size="lg" closeOnClickOutside={false} data-testid="web-replace">
      {props.opened && <ReplaceBody rules={props.rules} onClose={props.onClose} />}
    </Modal>
  );
}

function ReplaceBody(props: { rules: WebRow[]; onClose: () => void }) {
  const [form, setForm] = useState<ReplaceForm>({ from: '', to: '', keys: [] });
  const [attempt, setAttempt] = useState(0);
  const [serverError, setServerError] = useState<string | null>(null);
  const queryClient = useQueryClient();
  const problem = useMemo(() => (attempt > 0 ? replaceProblem(form) : null), [attempt, form]);
  const set = (patch: Partial<ReplaceForm>) => setForm((f) => ({ ...f, ...patch }));
  // Domains in use, offered as suggestions for the "from" field.
  const run = useMutation({
    mutationFn: () => call(webRoutes.replaceDomain, { body: replaceBody(form) }),
    onSuccess: async (r) => {
      pushNotice(r.changed ? webText('replaceDone', { changed: r.changed, rules: r.rules }) : webText('replaceNone'), r.changed ? 'green' : 'blue');
      props.onClose();
      await queryClient.invalidateQueries({ queryKey: webKeys.all });
    },
    onError: (e) => setServerError(e instanceof ApiError ? e.message : String(e)),
  });

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    setServerError(null);
    setAttempt((n) => n + 1);
    if (!replaceProblem(form)) run.mutate();
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        <Group grow align="flex-start">
          <TextInput
            label={webText('replaceFrom')}
            placeholder="old.example.com"
            value={form.from}
            onChange={(e) => set({ from: e.currentTarget.value })}
            error={errorFor(problem, 'from')}
            styles={{ input: { fontFamily: 'monospace' } }}
            data-testid="web-replace-from"
          />
          <TextInput
            label={webText('replaceTo')}
            placeholder="new.example.com"
            value={form.to}
            onChange={(e) => set({ to: e.currentTarget.value })}
            error={errorFor(problem, 'to')}
            styles={{ input: { fontFamily: 'monospace' } }}
            data-testid="web-replace-to"
          />
        </Group>
        <MultiSelect
          label={webText('replaceRules')}
          description={webText('replaceRulesHint')}
          data={props.rules.map((r) => ({ value: r.key, label: r.name }))}
          value={form.keys}
          onChange={(keys) => set({ keys })}
          clearable
          searchable
          data-testid="web-replace-rules"
          comboboxProps={{ withinPortal: true }}
        />
        {serverError && (
          <Alert color="red" p="xs">
            {serverError}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onClose}>
            {webText('cancel')}
          </Button>
          <Button type="submit" loading={run.isPending} data-testid="web-replace-run">
            {webText('replaceRun')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function SettingsModal(props: { opened: boolean; onClose: () => void }) {
  const configure = useQuery({ ...webConfigureQuery(), enabled: props.opened });
  return (
    <Modal opened={props.opened} onClose={props.onClose} title={webText('settingsTitle')} size="md" closeOnClickOutside={false} data-testid="web-settings">
      {props.opened &&
        (configure.data ? (
          <SettingsBody initial={configure.data.configure} onClose={props.onClose} />
        ) : configure.isError ? (
          <Alert color="red">{configure.error.message}</Alert>
        ) : (
          <Skeleton h={120} />
        ))}
    </Modal>
  );
}

const toNumber = (v: Num) => (typeof v === 'number' ? v : v.trim() === '' ? Number.NaN : Number(v));

function SettingsBody(props: { initial: WebConfigure; onClose: () => void }) {
  const [show, setShow] = useState<Num>(props.initial.accessLogShow);
  const [threads, setThreads] = useState<Num>(props.initial.servingThreads);
  const [attempt, setAttempt] = useState(0);
  const queryClient = useQueryClient();
  const body = { accessLogShow: toNumber(show), servingThreads: toNumber(threads) };
  const problem = attempt > 0 ? firstProblem(ZWebConfigure, body, lang, webText) : null;
  const save = useMutation({
    mutationFn: () => call(webRoutes.putConfigure, { body }),
    onSuccess: async () => {
      pushNotice(webText('settingsSaved'), 'green');
      props.onClose();
      await queryClient.invalidateQueries({ queryKey: webKeys.all });
    },
  });
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        setAttempt((n) => n + 1);
        if (!firstProblem(ZWebConfigure, body, lang, webText)) save.mutate();
      }}
      noValidate
    >
      <Stack gap="sm">
        <NumberInput
          clampBehavior="none"
          allowDecimal={false}
          label={webText('accessLogShow')}
          description={webText('accessLogShowHint')}
          min={1}
          max={256}
          value={show}
          onChange={setShow}
          error={problem?.path === 'accessLogShow' ? problem.message : undefined}
          data-testid="web-set-show"
        />
        <NumberInput
          clampBehavior="none"
          allowDecimal={false}
          label={webText('servingThreads')}
          description={webText('servingThreadsHint')}
          min={0}
          max={WEB_SERVING_THREADS_MAX}
          value={threads}
          onChange={setThreads}
          error={problem?.path === 'servingThreads' ? problem.message : undefined}
          data-testid="web-set-threads"
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onClose}>
            {webText('cancel')}
          </Button>
          <Button type="submit" loading={save.isPending} data-testid="web-settings-save">
            {webText('save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
