/** Add/edit a task: schedule with the next five run times from the daemon, window, overlap, catch-up, and the ordered action list. */
import { ActionIcon, Alert, Button, Card, Checkbox, Group, Select, SegmentedControl, Stack, Switch, Text, Textarea, TextInput } from '@mantine/core';
import { CRON_ACTION_TYPES, CRON_SWITCH_MODULES, cronRoutes, type CronActionType } from '@lucky/contracts';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { call } from '../../api';
import { routeQuery } from '../../api/routeQuery';
import { FormFrame } from '../../kit/form/FormFrame';
import { formatTime } from '../../kit/form/values';
import { WholeNumberInput } from '../../kit/fields/WholeNumberInput';
import { useRuleForm, type RuleFormProps } from '../../kit/rule-dialog/useRuleForm';
import { checkTask, emptyAction, emptyForm, formToTask, moveAction, toForm, type ActionForm, type CronForm } from './form';
import { cronText, type CronTextId } from './i18n';
import { cronRules } from './ruleModule';

const t = (id: CronTextId, vars?: Record<string, string | number>) => cronText(id, vars);

export const choicesQuery = () => routeQuery(['cron', 'choices'] as const, cronRoutes.choices, { silent: true });

export function RuleForm(props: RuleFormProps<typeof cronRoutes>) {
  const f = useRuleForm(cronRules, props, { empty: emptyForm, toForm, toInput: formToTask, check: checkTask });
  const v = f.form as CronForm;
  const set = (patch: Partial<CronForm>) => f.set(patch);
  const choices = useQuery(choicesQuery());
  const setAction = (i: number, patch: Partial<ActionForm>) => set({ actions: v.actions.map((a, j) => (j === i ? { ...a, ...patch } : a)) });
  return (
    <FormFrame {...f.frame}>
      <TextInput label={t('name')} value={v.name} onChange={(e) => set({ name: e.currentTarget.value })} data-testid="cron-name" />
      <SegmentedControl
        value={v.kind}
        onChange={(k) => set({ kind: k as CronForm['kind'] })}
        data={[
          { value: 'cron', label: t('kind.cron') },
          { value: 'interval', label: t('kind.interval') },
        ]}
        data-testid="cron-kind"
      />
      {v.kind === 'cron' ? (
        <TextInput label={t('expr')} description={t('exprHint')} value={v.expr} onChange={(e) => set({ expr: e.currentTarget.value })} ff="monospace" data-testid="cron-expr" />
      ) : (
        <WholeNumberInput label={t('every')} min={1} value={v.every} onChange={(x) => set({ every: x })} data-testid="cron-every" />
      )}
      <Group grow align="flex-start">
        <TextInput
          label={t('timezone')}
          description={t('timezoneHint', { zone: choices.data?.timezone ?? '' })}
          placeholder={choices.data?.timezone ?? ''}
          value={v.timezone}
          onChange={(e) => set({ timezone: e.currentTarget.value })}
          data-testid="cron-timezone"
        />
        <TextInput type="datetime-local" label={t('start')} value={v.start} onChange={(e) => set({ start: e.currentTarget.value })} data-testid="cron-start" />
        <TextInput type="datetime-local" label={t('end')} value={v.end} onChange={(e) => set({ end: e.currentTarget.value })} data-testid="cron-end" />
      </Group>
      <NextRuns form={v} />
      <Group grow align="flex-start">
        <Select
          label={t('overlap')}
          value={v.overlap}
          onChange={(x) => x && set({ overlap: x as CronForm['overlap'] })}
          data={(['skip', 'queue'] as const).map((o) => ({ value: o, label: t(`overlap.${o}`) }))}
          allowDeselect={false}
          data-testid="cron-overlap"
        />
        <Select
          label={t('catchUp')}
          value={v.catchUp}
          onChange={(x) => x && set({ catchUp: x as CronForm['catchUp'] })}
          data={(['skip', 'once'] as const).map((o) => ({ value: o, label: t(`catchUp.${o}`) }))}
          allowDeselect={false}
          data-testid="cron-catchup"
        />
      </Group>
      <Text fw={600}>{t('actions')}</Text>
      {v.actions.map((a, i) => (
        <Card key={a.id} withBorder padding="sm" data-testid="cron-action">
          <Stack gap="xs">
            <Group justify="space-between" wrap="nowrap">
              <Group gap="xs" wrap="nowrap">
                <Text size="sm" fw={600}>
                  {t('actionN', { n: i + 1 })}
                </Text>
                <Select
                  value={a.type}
                  onChange={(x) => x && setAction(i, { ...emptyAction(x as CronActionType), id: a.id })}
                  data={CRON_ACTION_TYPES.map((k) => ({ value: k, label: t(`action.${k}`) }))}
                  allowDeselect={false}
                  w={260}
                  aria-label={t('actions')}
                  data-testid="cron-action-type"
                />
                <Select
                  value={a.onFailure}
                  onChange={(x) => x && setAction(i, { onFailure: x as ActionForm['onFailure'] })}
                  data={(['stop', 'continue'] as const).map((o) => ({ value: o, label: `${t('onFailure')}: ${t(`onFailure.${o}`)}` }))}
                  allowDeselect={false}
                  w={240}
                  aria-label={t('onFailure')}
                  data-testid="cron-action-onfailure"
                />
              </Group>
              <Group gap={4} wrap="nowrap">
                <ActionIcon variant="subtle" onClick={() => set({ actions: moveAction(v.actions, i, -1) })} disabled={i === 0} aria-label={t('moveUp')} data-testid="cron-action-up">
                  ↑
                </ActionIcon>
                <ActionIcon variant="subtle" onClick={() => set({ actions: moveAction(v.actions, i, 1) })} disabled={i === v.actions.length - 1} aria-label={t('moveDown')} data-testid="cron-action-down">
                  ↓
                </ActionIcon>
                <ActionIcon variant="subtle" color="red" onClick={() => set({ actions: v.actions.filter((_, j) => j !== i) })} aria-label={t('removeAction')} data-testid="cron-action-remove">
                  ✕
                </ActionIcon>
              </Group>
            </Group>
            <ActionFields a={a} set={(p) => setAction(i, p)} rules={choices.data?.rules ?? {}} presets={choices.data?.webhookPresets ?? {}} />
          </Stack>
        </Card>
      ))}
      <Button variant="light" onClick={() => set({ actions: [...v.actions, emptyAction()] })} data-testid="cron-action-add">
        {t('addAction')}
      </Button>
      <TextInput label={cronText('note')} value={v.note} onChange={(e) => set({ note: e.currentTarget.value })} />
      <Switch label={cronText('enable')} checked={v.enable} onChange={(e) => set({ enable: e.currentTarget.checked })} />
    </FormFrame>
  );
}

/** The next five run times as the daemon computes them (its zone data, its checks), refreshed as the schedule is typed. */
function NextRuns({ form }: { form: CronForm }) {
  const body = formToTask(form);
  const [req] = useDebouncedValue({ schedule: body.schedule, timezone: body.timezone, start: body.start, end: body.end }, 300);
  const q = useQuery({
    queryKey: ['cron', 'nextruns', req],
    queryFn: ({ signal }) => call(cronRoutes.nextRuns, { body: req } as never, { silent: true, signal }),
    retry: false,
  });
  return (
    <Alert variant="light" color={q.isError ? 'red' : 'blue'} title={t('nextRuns')} data-testid="cron-nextruns">
      {q.isError ? (
        <Text size="sm" data-testid="cron-nextruns-error">
          {(q.error as Error).message}
        </Text>
      ) : (
        q.data && (
          <Stack gap={2}>
            <Text size="sm" fw={600} data-testid="cron-nextruns-text">
              {q.data.text} ({q.data.timezone})
            </Text>
            {q.data.times.map((x) => (
              <Text key={x} size="sm" ff="monospace" data-testid="cron-nextruns-time">
                {inZone(x, q.data.timezone)}
              </Text>
            ))}
          </Stack>
        )
      )}
    </Alert>
  );
}

/** A time as the task's zone reads it (the preview is about that zone), `YYYY-MM-DD HH:MM:SS`. */
function inZone(ms: number, zone: string): string {
  try {
    return new Date(ms).toLocaleString('sv-SE', { timeZone: zone });
  } catch {
    return formatTime(ms);
  }
}

type Rules = Record<string, Array<{ key: string; name: string; enable: boolean }>>;

function RulePick({ label, module, value, onChange, rules }: { label: string; module: string; value: string; onChange: (k: string) => void; rules: Rules }) {
  const list = rules[module] ?? [];
  return (
    <Select
      label={label}
      value={value || null}
      onChange={(x) => onChange(x ?? '')}
      data={list.map((r) => ({ value: r.key, label: r.name }))}
      placeholder={list.length === 0 ? t('noChoices') : ''}
      data-testid="cron-action-target"
    />
  );
}

function ActionFields({ a, set, rules, presets }: { a: ActionForm; set: (p: Partial<ActionForm>) => void; rules: Rules; presets: Record<string, Record<string, unknown>> }) {
  const text = (k: 'line' | 'cwd' | 'url' | 'body' | 'successText' | 'folder', label: string, more: Record<string, unknown> = {}) => (
    <TextInput label={label} value={a[k]} onChange={(e) => set({ [k]: e.currentTarget.value })} data-testid={`cron-action-${k}`} {...more} />
  );
  const method = (
    <Select label={t('method')} value={a.method} onChange={(x) => x && set({ method: x as ActionForm['method'] })} data={['GET', 'POST', 'PUT', 'PATCH']} allowDeselect={false} w={120} />
  );
  switch (a.type) {
    case 'command':
      return (
        <>
          {text('line', t('line'), { ff: 'monospace' })}
          <Group grow align="flex-start">
            {text('cwd', t('cwd'), { description: t('cwdHint') })}
            <WholeNumberInput label={t('timeout')} min={1} value={a.timeout} onChange={(x) => set({ timeout: x })} data-testid="cron-action-timeout" />
          </Group>
          <Textarea label={t('env')} description={t('envHint')} value={a.env} onChange={(e) => set({ env: e.currentTarget.value })} autosize minRows={1} />
        </>
      );
    case 'url':
    case 'notify':
      return (
        <>
          {a.type === 'notify' && (
            <Group grow>
              <Select
                label={t('preset')}
                value={a.preset}
                onChange={(x) => {
                  if (!x) return;
                  const p = (presets[x] ?? {}) as { url?: string; method?: ActionForm['method']; headers?: string[]; body?: string; successCheck?: { enable: boolean; text: string } };
                  set({ preset: x, url: p.url ?? a.url, method: p.method ?? a.method, headers: (p.headers ?? []).join('\n'), body: p.body ?? a.body, successText: p.successCheck?.enable ? p.successCheck.text : '' });
                }}
                data={Object.keys(presets).map((k) => ({ value: k, label: cronText(`whPreset.${k}` as never) }))}
                allowDeselect={false}
                data-testid="cron-action-preset"
              />
              <Select
                label={t('when')}
                value={a.when}
                onChange={(x) => x && set({ when: x as ActionForm['when'] })}
                data={(['always', 'failure', 'success'] as const).map((w) => ({ value: w, label: t(`when.${w}`) }))}
                allowDeselect={false}
                data-testid="cron-action-when"
              />
            </Group>
          )}
          <Group align="flex-start" wrap="nowrap">
            {method}
            <div style={{ flex: 1 }}>{text('url', t('url'), { description: t('urlHint') })}</div>
          </Group>
          <Textarea label={t('headers')} value={a.headers} onChange={(e) => set({ headers: e.currentTarget.value })} autosize minRows={1} />
          <Textarea label={t('body')} value={a.body} onChange={(e) => set({ body: e.currentTarget.value })} autosize minRows={1} ff="monospace" />
          <Group grow align="flex-start">
            {text('successText', t('successText'))}
            {a.type === 'url' && <WholeNumberInput label={t('timeout')} min={1} max={600} value={a.timeout} onChange={(x) => set({ timeout: x })} />}
          </Group>
        </>
      );
    case 'wol':
    case 'wolShutdown':
      return <RulePick label={t('device')} module="wol" value={a.target} onChange={(k) => set({ target: k })} rules={rules} />;
    case 'ddnsSync':
      return <RulePick label={t('ddnsTask')} module="ddns" value={a.target} onChange={(k) => set({ target: k })} rules={rules} />;
    case 'switch':
      return (
        <Group grow align="flex-start">
          <Select
            label={t('module')}
            value={a.module}
            onChange={(x) => x && set({ module: x as ActionForm['module'], target: '' })}
            data={CRON_SWITCH_MODULES.map((m) => ({ value: m, label: t(`module.${m}`) }))}
            allowDeselect={false}
            data-testid="cron-action-module"
          />
          <RulePick label={t('rule')} module={a.module} value={a.target} onChange={(k) => set({ target: k })} rules={rules} />
          <Select
            label={t('switchTo')}
            value={a.enable ? 'on' : 'off'}
            onChange={(x) => x && set({ enable: x === 'on' })}
            data={(['on', 'off'] as const).map((o) => ({ value: o, label: t(`switchTo.${o}`) }))}
            allowDeselect={false}
            data-testid="cron-action-switchto"
          />
        </Group>
      );
    case 'backup':
      return (
        <Group grow align="flex-start">
          {text('folder', t('folder'))}
          <WholeNumberInput label={t('keep')} min={1} max={1000} value={a.keep} onChange={(x) => set({ keep: x })} data-testid="cron-action-keep" />
          <Checkbox mt={30} label={t('secrets')} checked={a.secrets} onChange={(e) => set({ secrets: e.currentTarget.checked })} />
        </Group>
      );
  }
}
