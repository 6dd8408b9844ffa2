/**
 * One published service: its name and switch, the address to open, the card of checks, the parts
 * made for it in their own modules (linked to their pages), and log, edit, delete.
 */
import { ActionIcon, Anchor, Button, Card, Group, Stack, Switch, Text } from '@mantine/core';
import type { publishRoutes } from '@lucky/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { call } from '../../api';
import { pushNotice } from '../../api/notices';
import { RuleStatusCell } from '../../kit/rule-list/RuleCells';
import type { RuleViewOf } from '../../kit/rule-list/ruleModule';
import { CheckList } from './CheckList';
import { publishText as t } from './i18n';
import { publishRules } from './ruleModule';
import { ServiceUrl } from './ServiceUrl';

export type Service = RuleViewOf<typeof publishRoutes>;

const ids = publishRules.testIds;

export function ServiceCard(props: { service: Service; onToggle: (enable: boolean) => void; onLog: () => void; onEdit: () => void; onDelete: () => void }) {
  const s = props.service;
  // The failed and pending checks are the status's reasons: said once, on their rows. Without checks
  // (a part that could not be made, a service switched off) the status says it alone.
  const status = s.checks.length > 0 ? { ...s.status, message: '' } : s.status;
  return (
    <Card withBorder padding="md" data-testid="publish-card" data-key={s.key} data-name={s.name}>
      <Stack gap="sm">
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Stack gap={4} miw={0}>
            <Group gap="xs" wrap="nowrap">
              <Text fw={600} truncate="end" data-testid={ids.rowName}>
                {s.name}
              </Text>
              <RuleStatusCell status={{ ...status, message: '' }} text={t} testIds={ids} />
            </Group>
            {status.message && (
              <Text fz="xs" c={status.state === 'error' ? 'red' : 'dimmed'} style={{ wordBreak: 'break-word' }} data-testid={ids.statusMessage}>
                {status.message}
              </Text>
            )}
            {s.note && (
              <Text fz="xs" c="dimmed" truncate="end" title={s.note}>
                {s.note}
              </Text>
            )}
          </Stack>
          <Switch checked={s.enable} onChange={(e) => props.onToggle(e.currentTarget.checked)} aria-label={t('colEnable')} data-testid={ids.toggle} />
        </Group>
        <div>
          <ServiceUrl url={s.url} />
          <Text fz="xs" c="dimmed" ff="monospace" truncate="end">
            {s.target}
            {s.publicAddress && ` · ${t('publicAddress', { ip: s.publicAddress })}`}
          </Text>
        </div>
        {s.checks.length > 0 ? (
          <CheckList checks={s.checks} />
        ) : (
          <Text fz="xs" c="dimmed" data-testid="publish-no-checks">
            {t('noChecks')}
          </Text>
        )}
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Parts parts={s.parts} />
          <Group gap={6} wrap="nowrap" ml="auto">
            <CheckNow service={s} />
            <Button size="xs" variant="light" onClick={props.onLog} data-testid={ids.logOpen}>
              {t('log')}
            </Button>
            <Button size="xs" variant="default" onClick={props.onEdit} data-testid={ids.edit}>
              {t('editShort')}
            </Button>
            <ActionIcon variant="subtle" color="red" onClick={props.onDelete} aria-label={t('delete')} size="md" data-testid={ids.delete}>
              ✕
            </ActionIcon>
          </Group>
        </Group>
      </Stack>
    </Card>
  );
}

/** Every link looked at now; the daemon answers once done, and the card is read again. */
function CheckNow({ service }: { service: Service }) {
  const queryClient = useQueryClient();
  const check = useMutation({
    mutationFn: () => call(publishRules.routes.check, { params: { key: service.key } }),
    onSuccess: (r) => pushNotice(r.msg, 'green'),
    onSettled: async () => queryClient.invalidateQueries({ queryKey: publishRules.queries.keys.all }),
  });
  return (
    <Button size="xs" variant="light" onClick={() => check.mutate()} loading={check.isPending} disabled={!service.enable} data-testid="publish-check-now">
      {t('checkNow')}
    </Button>
  );
}

/** The parts live in their modules (listed there with the service's badge): links to those pages. */
function Parts({ parts }: { parts: Service['parts'] }) {
  if (!parts.ddns && !parts.web && !parts.certificate && !parts.stun) return null;
  return (
    <Group gap="sm" fz="xs" data-testid="publish-parts">
      <Text fz="xs" c="dimmed">
        {t('parts')}
      </Text>
      {parts.ddns && (
        <Anchor href="#/ddns" fz="xs" data-testid="publish-part-ddns">
          {t('part.ddns')}
        </Anchor>
      )}
      {parts.stun && (
        <Anchor href="#/stun" fz="xs" data-testid="publish-part-stun">
          {t('part.stun')}
        </Anchor>
      )}
      {parts.web && (
        <Anchor href="#/web" fz="xs" data-testid="publish-part-web">
          {t('part.web')}
        </Anchor>
      )}
      {parts.certificate && (
        <Anchor href="#/acme" fz="xs" data-testid="publish-part-certificate">
          {t('part.certificate', { name: parts.certificate })}
        </Anchor>
      )}
    </Group>
  );
}
