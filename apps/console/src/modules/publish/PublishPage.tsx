/**
 * Publish: a card per published service (its address, its checks, its parts), add/edit, log,
 * delete, the module settings. The kit's dialogs and actions, around cards instead of a table: a
 * service is read as a chain of checks rather than as columns.
 */
import { Button, Card, Group, SimpleGrid, Skeleton, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { SettingsDialog } from '../../kit/module-settings/SettingsDialog';
import { RuleDialog } from '../../kit/rule-dialog/RuleDialog';
import type { Editing } from '../../kit/rule-dialog/useRuleForm';
import { ConfirmDelete } from '../../kit/rule-list/ConfirmDelete';
import { ModuleDisabled } from '../../kit/rule-list/ModuleDisabled';
import { DEFAULT_LAYOUT } from '../../kit/rule-list/ruleModule';
import { useRuleActions } from '../../kit/rule-list/useRuleActions';
import { useRuleRows } from '../../kit/rule-list/useRuleRows';
import { RuleLogDialog } from '../../kit/rule-log/RuleLogDialog';
import { PageTitle } from '../../shell/Shell';
import { publishText as t } from './i18n';
import { RuleForm } from './RuleForm';
import { publishRules } from './ruleModule';
import { ServiceCard, type Service } from './ServiceCard';
import { SettingsForm } from './SettingsForm';

const rules = publishRules;
const ids = rules.testIds;
const layout = { ...DEFAULT_LAYOUT, ...rules.layout };

export function PublishPage() {
  const { enabled, loading, rows } = useRuleRows(rules);
  const [editing, setEditing] = useState<Editing<Service> | null>(null);
  const [logOf, setLogOf] = useState<string | null>(null);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const { toggle, remove, deleting, setDeleting } = useRuleActions(rules);
  // The log dialog follows the list's refreshes.
  const logRow = logOf ? (rows.find((r) => r.key === logOf) ?? null) : null;

  return (
    <Stack data-testid={ids.page}>
      <PageTitle
        right={
          <Group gap="xs">
            <Button variant="default" onClick={() => setSettingsOpen(true)} disabled={!enabled} data-testid={ids.settingsOpen}>
              {t('settings')}
            </Button>
            <Button onClick={() => setEditing({ key: null, saved: null })} disabled={!enabled} data-testid={ids.add}>
              {t('add')}
            </Button>
          </Group>
        }
      >
        {t('title')}
      </PageTitle>
      {!enabled ? (
        <ModuleDisabled module={rules.module} />
      ) : loading ? (
        <Skeleton h={160} />
      ) : rows.length === 0 ? (
        <Card withBorder>
          <Text c="dimmed" ta="center" data-testid={`${ids.list}-empty`}>
            {t('empty')}
          </Text>
        </Card>
      ) : (
        <SimpleGrid cols={{ base: 1, xl: 2 }} data-testid={`${ids.list}-cards`}>
          {rows.map((s) => (
            <ServiceCard
              key={s.key}
              service={s}
              onToggle={(enable) => toggle.mutate({ key: s.key, enable })}
              onLog={() => setLogOf(s.key)}
              onEdit={() => setEditing({ key: s.key, saved: s })}
              onDelete={() => setDeleting(s)}
            />
          ))}
        </SimpleGrid>
      )}

      <RuleDialog rules={rules} editing={editing} onClose={() => setEditing(null)} size={layout.form} Form={RuleForm} />
      <RuleLogDialog rules={rules} rule={logRow} onClose={() => setLogOf(null)} size={layout.log} />
      <SettingsDialog rules={rules} opened={settingsOpen} onClose={() => setSettingsOpen(false)} size={layout.settings} Form={SettingsForm} />
      <ConfirmDelete
        name={deleting?.name ?? null}
        text={t}
        loading={remove.isPending}
        onCancel={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate({ key: deleting.key, name: deleting.name })}
        testId={ids.deleteConfirm}
      />
    </Stack>
  );
}
