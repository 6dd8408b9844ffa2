/** Overview: live process and system figures from /api/status, refreshed every 2 s, with small charts. */
import { Badge, Button, Card, Group, SimpleGrid, Skeleton, Stack, Table, Text } from '@mantine/core';
import { coreRoutes, type Status } from '@lucky/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { call } from '../../api';
import { pushNotice } from '../../api/notices';
import { statusQuery } from '../../api/queries';
import { shellText } from '../../i18n';
import { formatBytes } from '../../lib/helpers';
import { PageTitle } from '../../shell/Shell';
import { TitledCard } from '../../shell/TitledCard';
import { Meter, Sparkline } from './Sparkline';

export const HISTORY = 60;

interface Sample {
  time: number;
  procCpu: number;
  sysCpu: number;
  rss: number;
  heapUsed: number;
  memUsed: number;
}

export function formatDuration(seconds: number): string {
  const s = Math.floor(seconds);
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return shellText('status.days', { d, h });
  if (h > 0) return shellText('status.hours', { h, m });
  return shellText('status.minutes', { m, s: s % 60 });
}

function useHistory(data: Status | undefined): Sample[] {
  const [history, setHistory] = useState<Sample[]>([]);
  const last = useRef(0);
  useEffect(() => {
    if (!data || data.time === last.current) return;
    last.current = data.time;
    const sample: Sample = {
      time: data.time,
      procCpu: data.process.cpuPercent,
      sysCpu: data.system.cpuPercent,
      rss: data.process.memory.rss,
      heapUsed: data.process.memory.heapUsed,
      memUsed: data.system.memTotal - data.system.memFree,
    };
    setHistory((h) => [...h, sample].slice(-HISTORY));
  }, [data]);
  return history;
}

const pct = (n: number) => `${n.toFixed(1)}%`;

/** Named figures, one a row. */
function FiguresCard(props: { title: string; children: React.ReactNode }) {
  return (
    <TitledCard title={props.title}>
      <Table variant="vertical" withRowBorders={false} fz="sm">
        <Table.Tbody>{props.children}</Table.Tbody>
      </Table>
    </TitledCard>
  );
}

/** A figure of the last minutes: its value now and its line. */
function MetricCard(props: { label: string; value: string; values: number[]; max?: number; color?: string; testid?: string }) {
  return (
    <Card withBorder>
      <Group justify="space-between">
        <Text fz="sm" c="dimmed">
          {props.label}
        </Text>
        <Text fw={700} data-testid={props.testid}>
          {props.value}
        </Text>
      </Group>
      <Sparkline
        values={props.values}
        {...(props.max !== undefined ? { max: props.max } : {})}
        {...(props.color ? { color: `var(--mantine-color-${props.color}-6)` } : {})}
        label={props.label}
      />
    </Card>
  );
}

function Figure(props: { label: string; value: React.ReactNode; testid?: string }) {
  return (
    <Table.Tr>
      <Table.Th w={150} fw={500} c="dimmed">
        {props.label}
      </Table.Th>
      <Table.Td data-testid={props.testid}>{props.value}</Table.Td>
    </Table.Tr>
  );
}

export function StatusPage() {
  const status = useQuery(statusQuery());
  const data = status.data?.data;
  const history = useHistory(data);
  const queryClient = useQueryClient();
  const [gcBusy, setGcBusy] = useState(false);

  const gc = async () => {
    setGcBusy(true);
    try {
      const r = await call(coreRoutes.execGc, {});
      pushNotice(shellText('about.gcDone', { freed: formatBytes(Math.max(0, r.before.heapUsed - r.after.heapUsed)) }), 'green');
      await queryClient.invalidateQueries({ queryKey: ['status'] });
    } catch {
      // the client already showed the message
    } finally {
      setGcBusy(false);
    }
  };

  if (!data) {
    return (
      <Stack data-testid="status-page">
        <PageTitle>{shellText('status.title')}</PageTitle>
        <Skeleton h={240} />
      </Stack>
    );
  }
  const p = data.process;
  const s = data.system;
  const memUsed = s.memTotal - s.memFree;
  const n = history.length;

  return (
    <Stack data-testid="status-page" data-time={data.time}>
      <PageTitle
        right={
          <Button variant="light" onClick={() => void gc()} loading={gcBusy} data-testid="status-gc">
            {shellText('status.gc')}
          </Button>
        }
      >
        {shellText('status.title')}
      </PageTitle>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
        <MetricCard label={shellText('status.processCpu')} value={pct(p.cpuPercent)} values={history.map((h) => h.procCpu)} max={100} testid="status-proc-cpu" />
        <MetricCard label={shellText('status.systemCpu')} value={pct(s.cpuPercent)} values={history.map((h) => h.sysCpu)} max={100} color="orange" />
        <MetricCard label={shellText('status.rss')} value={formatBytes(p.memory.rss)} values={history.map((h) => h.rss)} color="grape" testid="status-rss" />
        <MetricCard
          label={shellText('status.memUsed')}
          value={`${formatBytes(memUsed)} / ${formatBytes(s.memTotal)}`}
          values={history.map((h) => h.memUsed)}
          max={s.memTotal}
          color="teal"
        />
      </SimpleGrid>
      <Text fz="xs" c="dimmed" mt={-8}>
        {shellText('status.lastMinutes', { n })}
      </Text>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <FiguresCard title={shellText('status.process')}>
          <Figure label={shellText('status.pid')} value={p.pid} />
          <Figure label={shellText('status.uptime')} value={formatDuration(p.uptime)} testid="status-uptime" />
          <Figure
            label={shellText('status.heap')}
            value={
              <Stack gap={4}>
                <span>{shellText('status.heapUsedOfTotal', { used: formatBytes(p.memory.heapUsed), total: formatBytes(p.memory.heapTotal) })}</span>
                <Meter value={p.memory.heapUsed} max={p.memory.heapTotal} label={shellText('status.heap')} />
              </Stack>
            }
          />
          <Figure label={shellText('status.external')} value={formatBytes(p.memory.external)} />
          <Figure
            label={shellText('status.eventLoop')}
            value={shellText('status.eventLoopValue', { mean: p.eventLoopDelay.mean.toFixed(1), p99: p.eventLoopDelay.p99.toFixed(1) })}
          />
          <Figure label={shellText('status.handles')} value={p.activeHandles} />
          <Figure label={shellText('status.adminConnections')} value={data.connections.admin} />
          <Figure label={shellText('status.sessions')} value={data.sessions} />
          <Figure label={shellText('status.runtime')} value={`Node ${data.runtime.node} · V8 ${data.runtime.v8}`} />
        </FiguresCard>
        <FiguresCard title={shellText('status.system')}>
          <Figure label={shellText('status.hostname')} value={s.hostname} />
          <Figure label={shellText('status.os')} value={`${s.platform} ${s.arch} ${s.release}`} />
          <Figure label={shellText('status.uptime')} value={formatDuration(s.uptime)} />
          <Figure label={shellText('status.cpus')} value={s.cpus} />
          <Figure label={shellText('status.cpuModel')} value={s.cpuModel} />
          <Figure label={shellText('status.load')} value={s.loadavg.map((l) => l.toFixed(2)).join(' / ')} />
          <Figure
            label={shellText('status.memUsed')}
            value={
              <Stack gap={4}>
                <span>
                  {formatBytes(memUsed)} / {formatBytes(s.memTotal)}
                </span>
                <Meter value={memUsed} max={s.memTotal} label={shellText('status.memUsed')} />
              </Stack>
            }
          />
          {Object.entries(data.connections.modules).map(([m, c]) => (
            <Figure key={m} label={`${shellText('status.connections')} · ${m}`} value={<Badge variant="light">{c}</Badge>} />
          ))}
        </FiguresCard>
      </SimpleGrid>
    </Stack>
  );
}
