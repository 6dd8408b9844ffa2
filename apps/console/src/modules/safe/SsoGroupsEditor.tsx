/** The groups of Lucky login: one row a group, with the web rules its members may open (picked by name, kept by key). */
import { ActionIcon, Button, Group, MultiSelect, Stack, Text, TextInput } from '@mantine/core';
import type { OidcGroupRules } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { ruleChoices } from '../portal/form';
import { portalText } from '../portal/i18n';
import { webRulesQuery } from '../portal/queries';
import { safeText } from './i18n';

const TESTID = 'safe-sso-portalGroups';

function GroupRow(props: { row: OidcGroupRules; onChange: (row: OidcGroupRules) => void; onRemove: () => void }) {
  const rules = useQuery(webRulesQuery()).data?.list;
  const { row } = props;
  return (
    <Group align="flex-start" gap="xs" wrap="nowrap" data-testid={`${TESTID}-row`}>
      <TextInput
        value={row.group}
        maxLength={128}
        placeholder={safeText('sso.groupPlaceholder')}
        aria-label={safeText('sso.group')}
        onChange={(e) => props.onChange({ ...row, group: e.currentTarget.value })}
        w={200}
        data-testid={`${TESTID}-group`}
      />
      <MultiSelect
        // The same choices as a portal user's: every rule by name, one without Lucky login or deleted marked so.
        data={ruleChoices(rules, row.rules, portalText)}
        value={row.rules}
        onChange={(keys) => props.onChange({ ...row, rules: keys })}
        // Nothing picked is not "nothing allowed": the daemon opens every rule with Lucky login then.
        placeholder={row.rules.length === 0 ? safeText('sso.rulesAll') : undefined}
        nothingFoundMessage={safeText('sso.rulesNone')}
        aria-label={safeText('sso.rules')}
        searchable
        clearable
        style={{ flex: 1 }}
        data-testid={`${TESTID}-rules`}
      />
      <ActionIcon variant="subtle" color="red" mt={6} onClick={props.onRemove} aria-label={safeText('sso.removeGroup')} data-testid={`${TESTID}-remove`}>
        ✕
      </ActionIcon>
    </Group>
  );
}

export function SsoGroupsEditor(props: { value: OidcGroupRules[]; onChange: (rows: OidcGroupRules[]) => void }) {
  const rows = props.value;
  const set = (i: number, row: OidcGroupRules) => props.onChange(rows.map((r, j) => (j === i ? row : r)));
  return (
    <Stack gap={6} data-testid={TESTID}>
      <div>
        <Text fw={500} fz="sm">
          {safeText('sso.portalGroups')}
        </Text>
        <Text fz="xs" c="dimmed">
          {safeText('sso.portalGroupsHint')}
        </Text>
      </div>
      {rows.length === 0 && (
        <Text fz="sm" c="dimmed">
          {safeText('sso.noGroups')}
        </Text>
      )}
      {rows.map((r, i) => (
        <GroupRow key={i} row={r} onChange={(row) => set(i, row)} onRemove={() => props.onChange(rows.filter((_, j) => j !== i))} />
      ))}
      <Group>
        <Button size="xs" variant="light" onClick={() => props.onChange([...rows, { group: '', rules: [] }])} data-testid={`${TESTID}-add`}>
          {safeText('sso.addGroup')}
        </Button>
      </Group>
    </Stack>
  );
}
