/** What the fleet list and a device's page show of a device: online state, version, load, modules, health. */
import { Badge, Group, Stack, Text, Tooltip } from '@mantine/core';
import { MODULES, type wanjiRoutes } from '@lucky/contracts';
import { lang, SHELL_TABLES } from '../../i18n';
import type { RuleViewOf } from '../../kit/rule-list/ruleModule';
import { formatBytes } from '../../lib/helpers';
import { agoParts, formatUptime, ruleTotals } from './form';
import { wanjiText } from './i18n';
import { Sparkline } from './Sparkline';

export type Device = RuleViewOf<typeof wanjiRoutes>;

const ONLINE_COLOR = { online: 'green', offline: 'red', unknown: 'gray' } as const;

/** A module's name: the shell's `module.<key>`, else its page title (`route.<route>`), else its key. */
export function moduleLabel(key: string): string {
  const shell: Record<string, string> = SHELL_TABLES[lang];
  const route = MODULES.find((m) => m.key === key)?.route.slice(1);
  return shell[`module.${key}`] ?? (route ? shell[`route.${route}`] : undefined) ?? key;
}

export const uptimeText = (s: number) => formatUptime(s, { d: wanjiText('unit.d'), h: wanjiText('unit.h'), min: wanjiText('unit.min'), s: wanjiText('unit.s') });

export function agoText(at: number): string {
  const { n, unit } = agoParts(Date.now() - at);
  return wanjiText('ago', { n, unit: wanjiText(`unit.${unit}`) });
}

/** Online, offline or not polled yet (switched off: the kit's "disabled"); since when, and why not. */
export function OnlineCell({ d }: { d: Device }) {
  const s = d.state;
  const state = d.enable ? s.online : 'disabled';
  return (
    <Stack gap={2}>
      <Badge color={state === 'disabled' ? 'gray' : ONLINE_COLOR[s.online]} variant={state === 'online' ? 'filled' : 'light'} tt="none" data-testid="wanji-online" data-state={state}>
        {wanjiText(`online.${state}`)}
      </Badge>
      {s.lastSeen !== null && (
        <Text fz="xs" c="dimmed" data-testid="wanji-lastseen">
          {wanjiText('lastSeen', { ago: agoText(s.lastSeen) })}
        </Text>
      )}
      {d.enable && s.error && (
        <Text fz="xs" c="red" style={{ wordBreak: 'break-word' }} data-testid="wanji-error">
          {s.error}
        </Text>
      )}
    </Stack>
  );
}

/** The version, the scope of the token when it only reads, the uptime. */
export function VersionCell({ d }: { d: Device }) {
  const s = d.state;
  if (!s.version) return <Text c="dimmed">-</Text>;
  return (
    <Stack gap={2}>
      <Group gap={4} wrap="nowrap">
        <Text fz="sm" ff="monospace" data-testid="wanji-version">
          {s.version}
        </Text>
        {s.scope === 'read' && (
          <Badge size="xs" color="orange" variant="light" tt="none" data-testid="wanji-readonly">
            {wanjiText('scope.read')}
          </Badge>
        )}
      </Group>
      {s.uptime !== null && (
        <Text fz="xs" c="dimmed">
          {wanjiText('up', { time: uptimeText(s.uptime) })}
        </Text>
      )}
    </Stack>
  );
}

/** CPU and memory now, with the last samples as small lines. */
export function LoadCell({ d }: { d: Device }) {
  const s = d.state;
  if (s.cpu === null || s.memory === null) return <Text c="dimmed">-</Text>;
  return (
    <Stack gap={2} data-testid="wanji-load">
      <Group gap={6} wrap="nowrap">
        <Text fz="xs" w={64}>
          {wanjiText('cpu', { n: s.cpu.toFixed(1) })}
        </Text>
        <Sparkline values={s.history.cpu} max={100} testId="wanji-spark-cpu" />
      </Group>
      <Group gap={6} wrap="nowrap">
        <Text fz="xs" w={64}>
          {wanjiText('mem', { n: s.memory.toFixed(1) })}
        </Text>
        <Sparkline values={s.history.memory} max={100} color="var(--mantine-color-grape-6)" testId="wanji-spark-mem" />
      </Group>
      {s.rss !== null && (
        <Text fz="xs" c="dimmed">
          {wanjiText('rss', { size: formatBytes(s.rss) })}
        </Text>
      )}
    </Stack>
  );
}

/** The modules switched on there, by name (all of them on hover). */
export function ModulesCell({ d }: { d: Device }) {
  const names = d.state.modules.map(moduleLabel);
  if (names.length === 0) return <Text c="dimmed">-</Text>;
  return (
    <Tooltip label={names.join(', ')} multiline maw={320} withinPortal>
      <Text fz="xs" data-testid="wanji-modules" data-modules={d.state.modules.join(',')}>
        {wanjiText('modulesOn', { n: names.length })}
      </Text>
    </Tooltip>
  );
}

/** Rules all told and in error; DDNS tasks failing; certificates near expiry (where those modules are on). */
export function HealthCell({ d }: { d: Device }) {
  const s = d.state;
  if (!s.version) return <Text c="dimmed">-</Text>;
  const { total, errors } = ruleTotals(s);
  return (
    <Group gap={4} data-testid="wanji-health" data-rules={total} data-errors={errors}>
      <Badge variant="light" color="gray" tt="none">
        {wanjiText('rulesN', { n: total })}
      </Badge>
      <Badge variant="light" color={errors > 0 ? 'red' : 'green'} tt="none" data-testid="wanji-errors">
        {wanjiText('errorsN', { n: errors })}
      </Badge>
      {s.ddnsFailing !== null && s.ddnsFailing > 0 && (
        <Badge variant="light" color="red" tt="none" data-testid="wanji-ddns-failing">
          {wanjiText('ddnsFailing', { n: s.ddnsFailing })}
        </Badge>
      )}
      {s.certsExpiring !== null && s.certsExpiring > 0 && (
        <Badge variant="light" color="orange" tt="none" data-testid="wanji-certs-expiring">
          {wanjiText('certsExpiring', { n: s.certsExpiring })}
        </Badge>
      )}
    </Group>
  );
}
