/**
 * The DDNS task whose provider account holds the names' zone (the template of the service's own
 * task). Tasks another module made (other services' own) are not offered: each follows its owner
 * and goes with it. A task deleted since the service was saved stays shown, so the choice is seen.
 */
import { Select } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { publishText as t } from './i18n';
import { ddnsTasksQuery } from './queries';

export function DnsTaskField(props: { value: string; onChange: (key: string) => void; error: string | undefined }) {
  const answer = useQuery(ddnsTasksQuery()).data;
  const tasks = (answer?.list ?? []).filter((task) => !task.owner || task.key === props.value);
  const missing = answer && props.value !== '' && !tasks.some((task) => task.key === props.value);
  const data = [
    ...tasks.map((task) => ({ value: task.key, label: task.enable ? `${task.name} (${task.provider})` : t('dnsTaskOff', { name: `${task.name} (${task.provider})` }) })),
    ...(missing ? [{ value: props.value, label: t('dnsTaskMissing', { key: props.value }) }] : []),
  ];
  return (
    <Select
      label={t('dnsTask')}
      description={t('dnsTaskHint')}
      data={data}
      value={props.value || null}
      onChange={(k) => props.onChange(k ?? '')}
      placeholder={data.length === 0 ? t('dnsTaskNone') : undefined}
      nothingFoundMessage={t('dnsTaskNone')}
      error={props.error}
      withAsterisk
      data-testid="publish-dnstask"
    />
  );
}
