/**
 * The DDNS task whose DNS provider writes an ACME DNS-01 challenge's TXT records (a certificate
 * rule, a web rule's automatic certificate). A task whose provider cannot write TXT records is
 * shown but cannot be picked; none are listed while the DDNS module is off.
 */
import { Select } from '@mantine/core';
import { DDNS_PROVIDER_INFO, ddnsRoutes } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { routeQuery } from '../../api/routeQuery';

/** The DDNS module's own list key, so a task added or renamed there shows here too. */
const tasksQuery = () => routeQuery(['ddns', 'rules'] as const, ddnsRoutes.list, { silent: true, staleTime: 30_000 });

export function DnsTaskSelect(props: { label: string; description?: string; value: string; onChange: (key: string) => void; error?: string | undefined; testId: string }) {
  const tasks = useQuery(tasksQuery()).data?.list ?? [];
  return (
    <Select
      label={props.label}
      description={props.description}
      data={tasks.map((task) => ({ value: task.key, label: `${task.name} (${task.provider})`, disabled: !DDNS_PROVIDER_INFO[task.provider].txt }))}
      value={props.value || null}
      onChange={(k) => props.onChange(k ?? '')}
      error={props.error}
      data-testid={props.testId}
    />
  );
}
