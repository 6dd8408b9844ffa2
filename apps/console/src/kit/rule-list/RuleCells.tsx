/** Cells every rule list shows alike: the name with its details, the engine's state, a few list entries, the owner. */
import { Badge, Group, Text } from '@mantine/core';
import type { Lang, RuleOwner, RuleStatus } from '@lucky/contracts';
import type { ReactNode } from 'react';
import { lang, SHELL_TABLES, type MessageId } from '../../i18n';
import type { RuleTexts } from '../texts';
import type { RuleTestIds } from './ruleModule';

// Waiting is pending (a certificate being ordered), not a fault: never the error's red.
const STATE_COLOR: Record<RuleStatus['state'], string> = { running: 'green', stopped: 'gray', error: 'red', disabled: 'gray', waiting: 'yellow' };

export function RuleNameCell(props: { name: string; note?: string; testId: string; children?: ReactNode }) {
  return (
    <>
      <Text fw={500} fz="sm" data-testid={props.testId}>
        {props.name}
      </Text>
      {props.children}
      {props.note && (
        <Text fz="xs" c="dimmed" truncate="end" title={props.note}>
          {props.note}
        </Text>
      )}
    </>
  );
}

/** The engine's state; its message (why it is not running) under it; `aside` next to the badge. */
export function RuleStatusCell(props: { status: RuleStatus; text: RuleTexts; testIds: RuleTestIds; aside?: ReactNode }) {
  const { state, message } = props.status;
  const badge = (
    <Badge color={STATE_COLOR[state]} variant="light" tt="none" data-testid={props.testIds.status} data-state={state}>
      {props.text(`state.${state}`)}
    </Badge>
  );
  return (
    <>
      {props.aside ? (
        <Group gap={6} wrap="nowrap">
          {badge}
          {props.aside}
        </Group>
      ) : (
        badge
      )}
      {message && (
        <Text fz="xs" c={state === 'error' ? 'red' : 'dimmed'} style={{ wordBreak: 'break-word' }} data-testid={props.testIds.statusMessage}>
          {message}
        </Text>
      )}
    </>
  );
}

/** The first two entries of a list (domains), "and N more" for the rest; all of them on hover. */
export function FirstEntries(props: { entries: readonly string[]; text: RuleTexts; mono?: boolean; testId?: string }) {
  const { entries } = props;
  return (
    <Text fz="xs" c="dimmed" truncate="end" title={entries.join('\n')} style={props.mono ? { fontFamily: 'monospace' } : undefined} data-testid={props.testId}>
      {entries.slice(0, 2).join(', ')}
      {entries.length > 2 ? ` ${props.text('domainsMore', { n: entries.length - 2 })}` : ''}
    </Text>
  );
}

/**
 * A list field as badges (the services using a storage, the web rules a portal user may open), or a
 * dimmed line while it is empty; `attr` carries the entries' keys for scripts and tests.
 */
export function BadgeList(props: { entries: readonly { key: string; label: string }[]; emptyText: string; color: string; testId: string; attr: `data-${string}` }) {
  const data = { 'data-testid': props.testId, [props.attr]: props.entries.map((e) => e.key).join(',') };
  if (props.entries.length === 0) {
    return (
      <Text fz="xs" c="dimmed" {...data}>
        {props.emptyText}
      </Text>
    );
  }
  return (
    <Group gap={4} {...data}>
      {props.entries.map((e) => (
        <Badge key={e.key} size="sm" variant="light" color={props.color} tt="none">
          {e.label}
        </Badge>
      ))}
    </Group>
  );
}

/**
 * A rule another module made for one of its objects ("Publish: Home Assistant"): still the user's to
 * edit here, marked so that its origin is known. Nothing for a rule made in its own module.
 */
export function RuleOwnerBadge(props: { owner: RuleOwner | null | undefined; text: RuleTexts; testId: string; inLang?: Lang }) {
  const { owner } = props;
  if (!owner) return null;
  const vars = { module: SHELL_TABLES[props.inLang ?? lang][`module.${owner.module}` as MessageId] ?? owner.module, name: owner.name };
  return (
    <Badge size="xs" variant="light" color="gray" tt="none" maw="100%" title={props.text('ownedByTitle', vars)} data-testid={props.testId} data-owner={owner.module}>
      {props.text('ownedBy', vars)}
    </Badge>
  );
}
